//! Drawing a distribution with `plotters`: SVG directly, PNG by rendering that SVG with
//! `resvg` (pure Rust; text uses the system's fonts).

use anyhow::{bail, Context, Result};
use perfectplay::dynamic::DistributionReport;
use plotters::prelude::*;

/// The size of a plot in pixels.
pub const SIZE: (u32, u32) = (800, 500);

/// Draws the probability of each total as bars to `file` (`.svg` or `.png`).
pub fn distribution(d: &DistributionReport, file: &str) -> Result<()> {
    let lower = file.to_ascii_lowercase();
    let png = lower.ends_with(".png");
    if !png && !lower.ends_with(".svg") {
        bail!("the file name must end in .svg or .png");
    }
    let svg = svg(d)?;
    if png {
        crate::files::write(file, &to_png(&svg)?)
            .with_context(|| format!("cannot write '{file}'"))?;
    } else {
        crate::files::write(file, svg.as_bytes())
            .with_context(|| format!("cannot write '{file}'"))?;
    }
    Ok(())
}

fn svg(d: &DistributionReport) -> Result<String> {
    // Long thin tails (games with cycles) would squash the picture: draw up to the total where
    // all but 1e-5 of the probability is reached.
    let shown = d
        .pmf
        .iter()
        .position(|(_, _, c)| c.float >= 1.0 - 1e-5)
        .map_or(d.pmf.len(), |i| i + 1);
    let points: Vec<(f64, f64)> = d.pmf[..shown]
        .iter()
        .map(|(t, p, _)| (t.to_f64(), p.float))
        .collect();
    let (lo, hi) = points
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), (t, _)| {
            (a.min(*t), b.max(*t))
        });
    let (lo, hi) = if points.is_empty() {
        (0.0, 1.0)
    } else {
        (lo, hi)
    };
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
    let top = points.iter().map(|p| p.1).fold(0.0, f64::max).max(1e-300) * 1.08;
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(|e| anyhow::anyhow!("{e}"))?;
        let caption = format!(
            "distribution of the total: mean {:.6}, std {:.6}{}",
            d.mean.float,
            d.std,
            if d.tail.float > 0.0 {
                format!(", tail {:.2e}", d.tail.float)
            } else {
                String::new()
            }
        );
        let mut chart = ChartBuilder::on(&root)
            .caption(caption, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(lo - gap..hi + gap, 0.0..top)
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        chart
            .configure_mesh()
            .x_desc("total")
            .y_desc("probability")
            .draw()
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        let half = gap * 0.4;
        chart
            .draw_series(points.iter().map(|&(t, p)| {
                Rectangle::new([(t - half, 0.0), (t + half, p)], BLUE.mix(0.8).filled())
            }))
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        root.present().map_err(|e| anyhow::anyhow!("{e}"))?;
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
        None => eprintln!(
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
