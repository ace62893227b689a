//! The explorer's answers: every request of the page and the API, as a function from a
//! request to a response (the server only moves bytes).

use std::collections::BTreeMap;
use std::sync::Mutex;

use perfectplay::dynamic::{Explained, Solved};
use perfectplay::export::{distribution_json, json_line, write_strategy, StrategyFormat};
use perfectplay::{DistributionOptions, NodeKind, Rat, Rng};
use serde::Serialize;

use crate::html;
use crate::http::{Body, Request, Response};

/// What is being explored, as the page introduces it.
#[derive(Default)]
pub struct About<'a> {
    /// The game's name (`pig`), or the model file's; the page draws the positions of some
    /// games by it (`pig`, `yahtzee`, and `prism` for a PRISM model's valuations).
    pub name: String,
    /// What was solved, as a command line would say it (`pig --goal 100`).
    pub title: String,
    /// One sentence on the game.
    pub summary: String,
    /// How positions are written, for the page's box that jumps to one.
    pub notation: Option<String>,
    /// Further facts shown as a table: a PRISM model's property and initial state, say.
    pub details: Vec<(String, String)>,
    /// The game's parameters (as `strategy --out` writes them in its JSON).
    pub params: BTreeMap<String, String>,
    /// The labels that hold at a state given in the game's notation (a PRISM model's).
    #[allow(clippy::type_complexity)]
    pub labels: Option<Box<dyn Fn(&str) -> Vec<String> + Send + Sync + 'a>>,
}

/// A solved game with its description, answering the page's requests.
pub struct Explorer<'a> {
    solved: &'a (dyn Solved + Sync),
    about: About<'a>,
    /// One distribution at a time (each can take the whole machine), and the last one made.
    distribution: Mutex<Option<((usize, u64), String)>>,
}

/// The longest play `/api/play` follows.
const MAX_PLAY: usize = 100_000;

const INDEX: &str = include_str!("../assets/index.html");
const SCRIPT: &str = include_str!("../assets/app.js");
const STYLE: &str = include_str!("../assets/style.css");

impl<'a> Explorer<'a> {
    /// The explorer of `solved`, described by `about`.
    pub fn new(solved: &'a (dyn Solved + Sync), about: About<'a>) -> Self {
        Explorer {
            solved,
            about,
            distribution: Mutex::new(None),
        }
    }

    /// The answer to `request`.
    pub fn respond(&self, request: &Request) -> Response<'_> {
        if request.method != "GET" && request.method != "HEAD" {
            return Response::error(405, "only GET is answered here")
                .with("Allow", "GET, HEAD".into());
        }
        let answer = match request.path.as_str() {
            "/" | "/index.html" => Ok(Response::bytes(200, "text/html; charset=utf-8", INDEX)),
            "/app.js" => Ok(Response::bytes(
                200,
                "text/javascript; charset=utf-8",
                SCRIPT,
            )),
            "/style.css" => Ok(Response::bytes(200, "text/css; charset=utf-8", STYLE)),
            "/api/game" => Ok(self.game()),
            "/api/explain" => self.explain(request),
            "/api/view" => self.view(request),
            "/api/distribution" => self.distribution(request),
            "/api/play" => self.play(request),
            "/api/strategy.csv" => Ok(self.strategy(StrategyFormat::Csv)),
            "/api/strategy.json" => Ok(self.strategy(StrategyFormat::Json)),
            _ => return Response::error(404, &format!("nothing at '{}'", request.path)),
        };
        answer.unwrap_or_else(|message| Response::error(400, &message))
    }

    /// The state a request names: `id=N`, or `state=TEXT` in the game's notation, or the
    /// start.
    fn state_of(&self, request: &Request) -> Result<usize, String> {
        match (request.param("id"), request.param("state")) {
            (Some(_), Some(_)) => Err("give either id or state, not both".into()),
            (Some(id), None) => match id.trim().parse::<usize>() {
                Ok(id) if id < self.solved.states() => Ok(id),
                Ok(id) => Err(format!("no state is numbered {id}")),
                Err(_) => Err(format!("id: '{id}' is not a state number")),
            },
            (None, Some(text)) => self.solved.find(text).map_err(|e| e.to_string()),
            (None, None) => Ok(0),
        }
    }

    fn explained(&self, request: &Request) -> Result<Explained, String> {
        let id = self.state_of(request)?;
        self.solved.explain(id).map_err(|e| e.to_string())
    }

    fn game(&self) -> Response<'_> {
        #[derive(Serialize)]
        struct Game<'a> {
            name: &'a str,
            title: &'a str,
            summary: &'a str,
            notation: &'a Option<String>,
            details: &'a [(String, String)],
            total_name: String,
            players: [String; 2],
            report: &'a perfectplay::dynamic::Report,
        }
        let a = &self.about;
        Response::json(json_line(&Game {
            name: &a.name,
            title: &a.title,
            summary: &a.summary,
            notation: &a.notation,
            details: &a.details,
            total_name: self.solved.total_name(),
            players: [
                self.solved.player_label(perfectplay::Player::Max),
                self.solved.player_label(perfectplay::Player::Min),
            ],
            report: self.solved.report(),
        }))
    }

    fn explain(&self, request: &Request) -> Result<Response<'_>, String> {
        let e = self.explained(request)?;
        Ok(Response::json(json_line(&e)).with("X-State-Id", e.id.to_string()))
    }

    fn view(&self, request: &Request) -> Result<Response<'_>, String> {
        let e = self.explained(request)?;
        let labels = self.about.labels.as_ref().map(|f| f(&e.explanation.state));
        let player = |p| self.solved.player_label(p);
        let fragment = html::position(
            &self.about.name,
            &e,
            labels.as_deref(),
            &self.about.params,
            &player,
        );
        Ok(Response::bytes(200, "text/html; charset=utf-8", fragment)
            .with("X-State-Id", e.id.to_string()))
    }

    fn distribution(&self, request: &Request) -> Result<Response<'_>, String> {
        let id = self.state_of(request)?;
        let tail = match request.param("tail") {
            None => 1e-12,
            Some(t) => match t.trim().parse::<f64>() {
                Ok(t) if t > 0.0 && t < 1.0 => t,
                _ => return Err(format!("tail: '{t}' is not in (0, 1)")),
            },
        };
        let mut last = self.distribution.lock().unwrap_or_else(|e| e.into_inner());
        let key = (id, tail.to_bits());
        if let Some((at, text)) = &*last {
            if *at == key {
                return Ok(Response::json(text.clone()));
            }
        }
        let options = DistributionOptions {
            tail,
            ..DistributionOptions::default()
        };
        let d = self
            .solved
            .distribution_from(id, &options)
            .map_err(|e| e.to_string())?;
        let value = self.solved.explain(id).map_err(|e| e.to_string())?;
        let text = distribution_json(&value.explanation.value, &d);
        *last = Some((key, text.clone()));
        Ok(Response::json(text))
    }

    fn play(&self, request: &Request) -> Result<Response<'_>, String> {
        let id = self.state_of(request)?;
        let seed = match request.param("seed") {
            None => 1,
            Some(s) => s
                .trim()
                .parse::<u64>()
                .map_err(|_| format!("seed: '{s}' is not a whole number"))?,
        };
        let play = self.play_from(id, seed).map_err(|e| e.to_string())?;
        Ok(Response::json(json_line(&play)))
    }

    /// A play from state `id` to its end with the strategy's moves everywhere and chance
    /// drawn from `seed`.
    fn play_from(&self, mut id: usize, seed: u64) -> Result<Play, perfectplay::SolveError> {
        let mut rng = Rng::new(seed);
        let mut total = Rat::ZERO;
        let mut steps = Vec::new();
        loop {
            let e = self.solved.explain(id)?;
            let x = &e.explanation;
            let mut step = PlayStep {
                id,
                state: x.state.clone(),
                value: x.value.float,
                player: None,
                played: None,
                probability: None,
                outcome: None,
                reward: 0.0,
            };
            let pick = match x.kind {
                NodeKind::Terminal | NodeKind::Unset => {
                    let end_total = total.to_f64() + x.value.float;
                    let end = x
                        .value
                        .to_rat()
                        .and_then(|p| self.solved.show_end(id, total + p));
                    steps.push(step);
                    return Ok(Play {
                        seed,
                        steps,
                        total: end_total,
                        end,
                        finished: true,
                    });
                }
                NodeKind::Chance => rng.pick(x.branches.iter().map(|b| b.probability)),
                NodeKind::Decision(p) => {
                    step.player = Some(self.solved.player_label(p));
                    x.branches.iter().position(|b| b.chosen).unwrap_or(0)
                }
            };
            let b = &x.branches[pick];
            step.played = Some(b.label.clone());
            let followed = e.follow(pick, &mut rng);
            if matches!(x.kind, NodeKind::Chance) {
                step.probability = Some(b.probability.to_string());
            }
            if let Some(i) = followed.outcome {
                let o = &b.outcomes[i];
                step.outcome = Some(o.label.clone());
                step.probability = Some(o.probability.to_string());
            }
            step.reward = followed.reward.to_f64();
            total = total + followed.reward;
            id = followed.next;
            steps.push(step);
            if steps.len() >= MAX_PLAY {
                return Ok(Play {
                    seed,
                    steps,
                    total: total.to_f64(),
                    end: None,
                    finished: false,
                });
            }
        }
    }

    fn strategy(&self, format: StrategyFormat) -> Response<'_> {
        let (name, content_type) = match format {
            StrategyFormat::Csv => ("strategy.csv", "text/csv; charset=utf-8"),
            StrategyFormat::Json => ("strategy.json", "application/json"),
        };
        let solved = self.solved;
        let about = &self.about;
        let write = move |w: &mut dyn std::io::Write| {
            let params: BTreeMap<&str, &str> = about
                .params
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect();
            write_strategy(solved, &about.name, &params, format, w)
                .map(|_| ())
                .map_err(std::io::Error::other)
        };
        Response {
            status: 200,
            content_type,
            headers: vec![(
                "Content-Disposition",
                format!("attachment; filename=\"{name}\""),
            )],
            body: Body::Stream(Box::new(write)),
        }
    }
}

/// What `/api/play` answers.
#[derive(Serialize)]
struct Play {
    seed: u64,
    /// Every position of the play with what was played there; the last is the end.
    steps: Vec<PlayStep>,
    /// The total won along the play, with the end's payoff.
    total: f64,
    /// The end in the game's terms, where it says.
    end: Option<String>,
    /// `false` where the play was cut after [`MAX_PLAY`] steps.
    finished: bool,
}

/// One position of a play.
#[derive(Serialize)]
struct PlayStep {
    id: usize,
    state: String,
    value: f64,
    /// Who moved, at a decision.
    #[serde(skip_serializing_if = "Option::is_none")]
    player: Option<String>,
    /// The move played or the outcome chance drew.
    #[serde(skip_serializing_if = "Option::is_none")]
    played: Option<String>,
    /// The probability of what chance drew.
    #[serde(skip_serializing_if = "Option::is_none")]
    probability: Option<String>,
    /// The outcome of a random move.
    #[serde(skip_serializing_if = "Option::is_none")]
    outcome: Option<String>,
    /// What was won on the way to the next position.
    reward: f64,
}
