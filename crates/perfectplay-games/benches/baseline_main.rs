//! The hand-written baselines as a program, for whole-process timing against
//! `perfectplay solve` (see BENCHMARKS.md):
//!
//! ```text
//! baseline perfect-memory ROWS COLS
//! baseline pig GOAL
//! baseline yahtzee THREADS
//! baseline gold-pots FILE      (pots separated by commas, the competitive variant)
//! ```

mod baselines;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let num = |i: usize| -> usize {
        args.get(i)
            .and_then(|a| a.parse().ok())
            .unwrap_or_else(|| usage())
    };
    let value = match args.first().map(String::as_str) {
        Some("perfect-memory") => baselines::perfect_memory(num(1) * num(2)),
        Some("pig") => baselines::pig(num(1)),
        Some("gold-pots") => {
            let text = args
                .get(1)
                .and_then(|path| std::fs::read_to_string(path).ok())
                .unwrap_or_else(|| usage());
            let pots: Option<Vec<u32>> = text.split(',').map(|p| p.trim().parse().ok()).collect();
            baselines::gold_pots_competitive(&pots.unwrap_or_else(|| usage()))
        }
        Some("yahtzee") => {
            baselines::yahtzee((1 << 13) - 1, baselines::YahtzeeRules::FreeJoker, num(1))
        }
        _ => usage(),
    };
    println!("{value}");
}

fn usage() -> ! {
    eprintln!(
        "error: usage: baseline perfect-memory ROWS COLS | baseline pig GOAL | baseline \
         yahtzee THREADS | baseline gold-pots FILE"
    );
    std::process::exit(2)
}
