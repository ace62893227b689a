// The explorer's page: one position at a time from the server's API, the path so far kept
// here. Nothing else is loaded: no framework, no network beyond this server.
"use strict";

const $ = (id) => document.getElementById(id);
const page = {
  game: null,
  // The path from where the exploration began: {id, label, value, reward}; the last is
  // the position shown.
  path: [],
  explained: null, // what /api/explain says about the position shown
  busy: false,
};

class ApiError extends Error {}

async function api(url) {
  const response = await fetch(url);
  const text = await response.text();
  let body = text;
  if ((response.headers.get("Content-Type") || "").startsWith("application/json")) {
    body = JSON.parse(text);
  }
  if (!response.ok) {
    throw new ApiError(body && body.error ? body.error : text);
  }
  return { body, id: response.headers.get("X-State-Id") };
}

function showError(message) {
  const box = $("error");
  box.textContent = message ? "error: " + message : "";
  box.hidden = !message;
}

function say(text, cls) {
  const status = $("status");
  status.textContent = text;
  status.className = cls || "";
}

function formatNumber(x) {
  if (!isFinite(x)) return String(x);
  return String(Number(x.toPrecision(10)));
}

function current() {
  return page.path[page.path.length - 1];
}

// Shows state `id`, reached by `label` with `reward` on the way (a new step of the path), or
// the last step again (`id` null).
async function go(id, label, reward, who) {
  if (id !== null) {
    page.path.push({ id: Number(id), label, value: null, reward: reward || 0, who });
  }
  await render();
}

async function render() {
  const at = current();
  showError("");
  try {
    const [explained, view] = await Promise.all([
      api("/api/explain?id=" + at.id),
      api("/api/view?id=" + at.id),
    ]);
    page.explained = explained.body;
    at.value = explained.body.value;
    $("position").innerHTML = view.body;
    for (const row of document.querySelectorAll("#position tr[data-branch]")) {
      row.addEventListener("click", () => take(Number(row.dataset.branch), "you"));
    }
  } catch (e) {
    showError(e.message);
    return;
  }
  drawPath();
  drawChart();
  drawStatus();
  $("distribution").textContent = "";
  if ($("versus").checked) {
    setTimeout(answer, 250);
  }
}

function branches() {
  const e = page.explained;
  return e.kind === "chance" ? e.outcomes : e.kind === "decision" ? e.moves : [];
}

// Draws an index with the given probabilities.
function draw(probabilities) {
  let u = Math.random();
  for (let i = 0; i < probabilities.length; i++) {
    u -= probabilities[i];
    if (u < 0) return i;
  }
  return probabilities.length - 1;
}

// Takes branch `i` of the position shown: an outcome of chance, or a move (chance draws the
// outcome of a random move).
async function take(i, who) {
  const e = page.explained;
  if (!e || e.kind === "terminal" || page.busy) return;
  const b = branches()[i];
  const row = document.querySelector(`#position tr[data-branch="${i}"]`);
  const next = row.dataset.next.split(" ");
  let label = e.kind === "chance" ? b.outcome : b.move;
  let reward = b.reward;
  let to = next[0];
  if (e.kind === "decision" && b.outcomes) {
    const j = draw(b.outcomes.map((o) => o.probability));
    to = next[j];
    label += " → " + b.outcomes[j].outcome;
    reward += b.outcomes[j].reward;
  }
  if (e.kind === "decision" && who !== "you") {
    label = playerName(e.player) + ": " + label;
  }
  page.busy = true;
  try {
    await go(to, label, reward, who);
  } finally {
    page.busy = false;
  }
}

function chosenIndex() {
  const i = branches().findIndex((b) => b.chosen);
  return i < 0 ? 0 : i;
}

// In a play against the strategy: chance and the other side move by themselves.
function answer() {
  const e = page.explained;
  if (!$("versus").checked || !e || page.busy) return;
  if (e.kind === "chance") {
    take(draw(e.outcomes.map((o) => o.probability)), "chance");
  } else if (e.kind === "decision" && e.player !== $("side").value) {
    take(chosenIndex(), "strategy");
  }
}

function total() {
  return page.path.reduce((sum, step) => sum + step.reward, 0);
}

// How the game names a player ("max" or "min" in the API).
function playerName(p) {
  if (!page.game) return p;
  return p === "max" ? page.game.players[0] : page.game.players[1];
}

function drawStatus() {
  const e = page.explained;
  const name = (page.game && page.game.total_name) || "total";
  if (e.kind === "terminal") {
    say(`Game over: ${name} ${formatNumber(total() + e.value)}.`, "over");
  } else if (e.kind === "chance") {
    say(`Chance to move. ${name} so far: ${formatNumber(total())}.`);
  } else {
    say(`${playerName(e.player)} to move. ${name} so far: ${formatNumber(total())}.`);
  }
}

function drawPath() {
  const nav = $("path");
  nav.textContent = "";
  page.path.forEach((step, k) => {
    if (k > 0) {
      const sep = document.createElement("span");
      sep.className = "sep";
      sep.textContent = "›";
      nav.appendChild(sep);
    }
    const a = document.createElement("a");
    a.className = "step";
    a.textContent = k === 0 ? (step.label || "start") : step.label;
    a.title = "back to this position";
    a.addEventListener("click", () => {
      page.path.length = k + 1;
      render();
    });
    nav.appendChild(a);
  });
}

const SVG = "http://www.w3.org/2000/svg";

function svgElement(name, attributes, text) {
  const el = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attributes)) el.setAttribute(k, v);
  if (text !== undefined) el.textContent = text;
  return el;
}

function drawChart() {
  const svg = $("chart");
  svg.textContent = "";
  // The value seen from the start: what was won so far plus the value ahead.
  let won = 0;
  const values = page.path.map((step) => {
    won += step.reward;
    return step.value === null ? null : won + step.value;
  }).filter((v) => v !== null);
  if (values.length === 0) return;
  const lo = Math.min(...values), hi = Math.max(...values);
  const span = hi - lo || 1;
  const x = (i) => 30 + (values.length === 1 ? 0 : (i * 360) / (values.length - 1));
  const y = (v) => 140 - ((v - lo) / span) * 120;
  svg.appendChild(svgElement("text", { x: 2, y: 22 }, formatNumber(hi)));
  svg.appendChild(svgElement("text", { x: 2, y: 142 }, formatNumber(lo)));
  const points = values.map((v, i) => `${x(i)},${y(v)}`).join(" ");
  svg.appendChild(svgElement("polyline", { class: "line", points }));
  values.forEach((v, i) => {
    const dot = svgElement("circle", { class: "dot", cx: x(i), cy: y(v), r: 3 });
    dot.appendChild(svgElement("title", {}, formatNumber(v)));
    svg.appendChild(dot);
  });
}

async function loadDistribution() {
  const box = $("distribution");
  box.textContent = "computing…";
  try {
    const { body: d } = await api("/api/distribution?id=" + current().id);
    box.textContent = "";
    const table = document.createElement("table");
    table.id = "distribution-summary";
    const rows = [["mean", d.mean], ["standard deviation", d.std]];
    for (const [q, t] of Object.entries(d.quantiles)) {
      rows.push([`${Math.round(Number(q) * 100)}% quantile`, t]);
    }
    if (d.tail > 0) rows.push(["left in cycles (tail)", d.tail]);
    for (const [k, v] of rows) {
      const tr = table.insertRow();
      tr.insertCell().textContent = k;
      tr.insertCell().textContent = v === null ? "—" : formatNumber(v);
    }
    box.appendChild(table);
    box.appendChild(plotPmf(d.pmf));
  } catch (e) {
    box.textContent = "";
    showError(e.message);
  }
}

// The probability of each total as bars.
function plotPmf(pmf) {
  const svg = svgElement("svg", { viewBox: "0 0 400 170", id: "distribution-plot" });
  if (pmf.length === 0) return svg;
  const lo = pmf[0][0], hi = pmf[pmf.length - 1][0];
  const span = hi - lo || 1;
  const top = Math.max(...pmf.map((p) => p[1]));
  const width = Math.max(1, 360 / Math.max(pmf.length, span + 1));
  for (const [t, p] of pmf) {
    const h = (p / top) * 140;
    const bar = svgElement("rect", { x: 30 + ((t - lo) / span) * (360 - width), y: 150 - h, width, height: h });
    bar.appendChild(svgElement("title", {}, `${formatNumber(t)}: ${formatNumber(p)}`));
    svg.appendChild(bar);
  }
  svg.appendChild(svgElement("text", { x: 30, y: 165 }, formatNumber(lo)));
  svg.appendChild(svgElement("text", { x: 360, y: 165 }, formatNumber(hi)));
  svg.appendChild(svgElement("text", { x: 2, y: 12 }, formatNumber(top)));
  return svg;
}

async function autoplay() {
  const seed = Math.floor(Math.random() * 2 ** 31);
  try {
    const { body: play } = await api(`/api/play?id=${current().id}&seed=${seed}`);
    // The first step is the position shown.
    for (let k = 0; k + 1 < play.steps.length; k++) {
      const s = play.steps[k];
      let label = s.played + (s.outcome ? " → " + s.outcome : "");
      if (s.player) label = s.player + ": " + label;
      page.path.push({ id: play.steps[k + 1].id, label, value: play.steps[k + 1].value, reward: s.reward, who: "strategy" });
    }
    await render();
    if (play.end) say(`Game over: ${play.end}.`, "over");
  } catch (e) {
    showError(e.message);
  }
}

async function jump(event) {
  event.preventDefault();
  const text = $("jump-state").value.trim();
  if (!text) return;
  try {
    const { id } = await api("/api/explain?state=" + encodeURIComponent(text));
    page.path = [{ id: Number(id), label: text, value: null, reward: 0 }];
    await render();
  } catch (e) {
    showError(e.message);
  }
}

async function start() {
  try {
    const { body: game } = await api("/api/game");
    page.game = game;
    $("title").textContent = game.title;
    document.title = game.title + " · perfectplay";
    $("summary").textContent = game.summary;
    const r = game.report;
    $("game-value").textContent = formatNumber(r.value) + (r.exact && r.exact !== String(r.value) ? " = " + r.exact : "");
    $("method").textContent = `(${r.states} states, ${r.exact ? "exact" : "f64"}, ${r.seconds.toFixed(3)} s)`;
    const details = $("details");
    for (const [k, v] of game.details) {
      const tr = details.insertRow();
      tr.insertCell().textContent = k;
      const code = document.createElement("code");
      code.textContent = v;
      tr.insertCell().appendChild(code);
    }
    if (game.notation) $("notation").textContent = "Written as: " + game.notation;
    const side = $("side");
    for (const [value, name] of [["max", game.players[0]], ["min", game.players[1]]]) {
      if (side.querySelector(`option[value="${value}"]`)) continue;
      const option = document.createElement("option");
      option.value = value;
      option.textContent = name;
      side.appendChild(option);
      if (game.players[0] === game.players[1]) break;
    }
  } catch (e) {
    showError(e.message);
  }
  page.path = [{ id: 0, label: "start", value: null, reward: 0 }];
  await render();
}

$("jump").addEventListener("submit", jump);
$("undo").addEventListener("click", () => {
  // In a play against the strategy, back to before your last move; else one step back.
  const versus = $("versus").checked;
  while (page.path.length > 1) {
    const step = page.path.pop();
    if (!versus || step.who === "you") break;
  }
  render();
});
$("restart").addEventListener("click", () => {
  page.path.length = 1;
  render();
});
$("draw").addEventListener("click", () => {
  const e = page.explained;
  if (e && e.kind === "chance") take(draw(e.outcomes.map((o) => o.probability)), "chance");
});
$("best").addEventListener("click", () => {
  const e = page.explained;
  if (e && e.kind === "decision") take(chosenIndex(), "strategy");
});
$("autoplay").addEventListener("click", autoplay);
$("versus").addEventListener("change", () => setTimeout(answer, 0));
$("load-distribution").addEventListener("click", loadDistribution);
start();
