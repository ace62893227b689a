//! Drawing a distribution with `plotters`: SVG directly, PNG by rendering that SVG with
//! `resvg` (pure Rust; text uses the system's fonts).

use crate::say::say;
use anyhow::{bail, Context, Result};
use perfectplay::dynamic::DistributionReport;
use plotters::prelude::*;

/// The size of a plot in pixels.
pub const SIZE: (u32, u32) = (800, 500);

/// What a plot shows: the probability of each total, or the cumulative probability.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    /// Bars: P(total = t).
    Probability,
    /// Steps: P(total <= t).
    Cumulative,
}

/// What to draw: the distribution, the plot's title (the game and its parameters) and what
/// the total counts (the x-axis).
pub struct Plot<'a> {
    /// The distribution of the total.
    pub distribution: &'a DistributionReport,
    /// The title: the game and its parameters.
    pub title: &'a str,
    /// What the total counts, for the x-axis (`moves`, `rolls`, ...).
    pub total: &'a str,
    /// Bars or the cumulative steps.
    pub view: View,
}

/// Draws the plot to `file` (`.svg` or `.png`).
pub fn draw(plot: &Plot<'_>, file: &str) -> Result<()> {
    let lower = file.to_ascii_lowercase();
    let png = lower.ends_with(".png");
    if !png && !lower.ends_with(".svg") {
        bail!("the file name must end in .svg or .png");
    }
    let svg = svg(plot)?;
    let bytes = if png { to_png(&svg)? } else { svg.into_bytes() };
    crate::files::write(file, &bytes).with_context(|| format!("cannot write '{file}'"))
}

/// Probability left out at each end of the x-range: long thin tails (games with cycles) would
/// squash the picture. The summary line says how much is not drawn.
const CUT: f64 = 5e-4;

/// A number in a plot's labels: six significant digits at most.
fn short(x: f64) -> String {
    crate::render::significant_text(x, Some(6))
}

fn svg(plot: &Plot<'_>) -> Result<String> {
    let d = plot.distribution;
    let err = |e: &dyn std::fmt::Display| anyhow::anyhow!("{e}");
    let first = d
        .pmf
        .iter()
        .position(|(_, _, c)| c.float >= CUT)
        .unwrap_or(0);
    let last = d
        .pmf
        .iter()
        .position(|(_, _, c)| c.float >= 1.0 - CUT)
        .map_or(d.pmf.len(), |i| i + 1)
        .max(first + 1)
        .min(d.pmf.len());
    let points: Vec<(f64, f64, f64)> = d.pmf[first.min(last)..last]
        .iter()
        .map(|(t, p, c)| (t.to_f64(), p.float, c.float))
        .collect();
    let (lo, hi) = match (points.first(), points.last()) {
        (Some(a), Some(b)) => (a.0, b.0),
        _ => (0.0, 1.0),
    };
    let integer = points.iter().all(|p| p.0.fract() == 0.0);
    // The narrowest gap between totals sets the bar width.
    let gap = points
        .windows(2)
        .map(|w| w[1].0 - w[0].0)
        .fold(f64::INFINITY, f64::min);
    let gap = if gap.is_finite() && gap > 0.0 {
        gap
    } else {
        1.0
    };
    let top = match plot.view {
        View::Probability => points.iter().map(|p| p.1).fold(0.0, f64::max).max(1e-300) * 1.1,
        View::Cumulative => 1.05,
    };
    let (x_lo, x_hi) = (lo - 0.7 * gap, hi + 0.7 * gap);
    // The probability outside the drawn range (cut tails and what the distribution left out).
    let hidden = d.tail.float
        + d.pmf[..first.min(last)]
            .iter()
            .map(|p| p.1.float)
            .sum::<f64>()
        + d.pmf[last..].iter().map(|p| p.1.float).sum::<f64>();
    // Integer totals get integer ticks: at most 12 labels, a whole step apart.
    let span = (x_hi - x_lo).max(1.0);
    let labels = if integer {
        (span.floor() as usize + 1).clamp(2, 12)
    } else {
        10
    };
    let mean = d.mean.float;
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let (title_area, body) = root.split_vertically(64);
        title_area
            .draw(&Text::new(
                plot.title.to_string(),
                (14, 10),
                ("sans-serif", 20).into_font().color(&BLACK),
            ))
            .map_err(|e| err(&e))?;
        let summary = format!(
            "mean {}, standard deviation {}{}",
            short(mean),
            short(d.std),
            if hidden > 0.0 {
                format!(
                    "; {} of the probability lies beyond the drawn totals",
                    short(hidden)
                )
            } else {
                String::new()
            }
        );
        title_area
            .draw(&Text::new(
                summary,
                (14, 38),
                ("sans-serif", 14).into_font().color(&BLACK.mix(0.7)),
            ))
            .map_err(|e| err(&e))?;
        let mut chart = ChartBuilder::on(&body)
            .margin(14)
            .x_label_area_size(44)
            .y_label_area_size(70)
            .build_cartesian_2d(x_lo..x_hi, 0.0..top)
            .map_err(|e| err(&e))?;
        let x_format = |x: &f64| {
            if integer {
                if (x - x.round()).abs() < 1e-9 {
                    format!("{}", x.round() as i64)
                } else {
                    String::new()
                }
            } else {
                short(*x)
            }
        };
        chart
            .configure_mesh()
            .x_desc(plot.total)
            .y_desc(match plot.view {
                View::Probability => "probability".to_string(),
                View::Cumulative => format!("P({} <= x)", plot.total),
            })
            .x_labels(labels)
            .x_label_formatter(&x_format)
            .bold_line_style(BLACK.mix(0.08))
            .light_line_style(TRANSPARENT)
            .axis_desc_style(("sans-serif", 15))
            .draw()
            .map_err(|e| err(&e))?;
        match plot.view {
            View::Probability => {
                let half = gap * 0.4;
                chart
                    .draw_series(points.iter().map(|&(t, p, _)| {
                        Rectangle::new([(t - half, 0.0), (t + half, p)], BLUE.mix(0.75).filled())
                    }))
                    .map_err(|e| err(&e))?;
            }
            View::Cumulative => {
                // A step function: flat from each total to the next.
                let mut steps = vec![(x_lo, 0.0)];
                let mut before = 0.0;
                for &(t, _, c) in &points {
                    steps.push((t, before));
                    steps.push((t, c));
                    before = c;
                }
                steps.push((x_hi, before));
                chart
                    .draw_series(std::iter::once(PathElement::new(
                        steps,
                        BLUE.stroke_width(2),
                    )))
                    .map_err(|e| err(&e))?;
            }
        }
        // The mean, as a dashed red line with its value.
        if mean.is_finite() && (x_lo..=x_hi).contains(&mean) {
            let dashes = (0..40).map(|k| {
                let y0 = top * k as f64 / 40.0;
                PathElement::new(
                    vec![(mean, y0), (mean, y0 + top / 80.0)],
                    RED.stroke_width(2),
                )
            });
            chart.draw_series(dashes).map_err(|e| err(&e))?;
            chart
                .draw_series(std::iter::once(Text::new(
                    format!(" mean {}", short(mean)),
                    (mean, top * 0.97),
                    ("sans-serif", 14).into_font().color(&RED),
                )))
                .map_err(|e| err(&e))?;
        }
        root.present().map_err(|e| err(&e))?;
    }
    Ok(out)
}

fn to_png(svg: &str) -> Result<Vec<u8>> {
    let mut options = resvg::usvg::Options::default();
    options.fontdb_mut().load_system_fonts();
    // "sans-serif" maps to a font that may not be installed; take DejaVu Sans or any font.
    let family = options
        .fontdb
        .faces()
        .flat_map(|f| f.families.iter().map(|(name, _)| name.clone()))
        .find(|n| n == "DejaVu Sans")
        .or_else(|| {
            options
                .fontdb
                .faces()
                .next()
                .and_then(|f| f.families.first().map(|(n, _)| n.clone()))
        });
    match family {
        Some(f) => options.fontdb_mut().set_sans_serif_family(f),
        None => say!(
            "warning: no system font found, so the PNG has no text (install fonts-dejavu-core, \
             or draw an .svg)"
        ),
    }
    let tree = resvg::usvg::Tree::from_str(svg, &options).context("cannot render the plot")?;
    let mut pixmap =
        resvg::tiny_skia::Pixmap::new(SIZE.0, SIZE.1).context("cannot allocate the image")?;
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::default(),
        &mut pixmap.as_mut(),
    );
    pixmap.encode_png().context("cannot encode the PNG")
}
