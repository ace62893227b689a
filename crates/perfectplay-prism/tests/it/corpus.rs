//! The kept corpus of adversarial inputs (`tests/corpus/`, with `EXPECTED.txt`): each file
//! loads, or fails with the error it names, and each property of `tests/corpus/props/` gives
//! its answer or its error; nothing panics, overflows the stack or hangs.
//! New cases found by the mutation test of `syntax.rs`, or by hand, go there.

use std::path::Path;

use perfectplay_prism::{check_prop, Loaded, Props};

#[test]
fn every_corpus_file_gives_its_expected_answer() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let expected = std::fs::read_to_string(dir.join("EXPECTED.txt")).unwrap();
    let mut count = 0;
    for line in expected
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let (file, want) = line.split_once(": ").expect("FILE: EXPECTED");
        let bytes = std::fs::read(dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        let text = String::from_utf8_lossy(&bytes);
        let got = Loaded::new(file, &text, &[], 100_000);
        match (want, got) {
            ("ok", Ok(_)) => {}
            ("ok", Err(e)) => panic!("{file}: {e}"),
            (_, Ok(_)) => panic!("{file}: loaded, but should say '{want}'"),
            (_, Err(e)) => {
                let e = e.to_string();
                assert!(e.contains(want), "{file}: '{e}' does not say '{want}'");
            }
        }
        count += 1;
    }
    // Every file of the folder is listed.
    let files = std::fs::read_dir(&dir)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "prism")
        })
        .count();
    assert_eq!(count, files, "a corpus file without an expectation");
}

/// The kept corpus of adversarial properties (`tests/corpus/props/`, on `walk.prism`): each
/// gives the answer or the error its line names, in floats or exactly.
#[test]
fn every_corpus_property_gives_its_expected_answer() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/props");
    let model = std::fs::read_to_string(dir.join("walk.prism")).unwrap();
    let loaded = Loaded::new("walk.prism", &model, &[], 100_000).unwrap();
    let expected = std::fs::read_to_string(dir.join("EXPECTED.txt")).unwrap();
    let mut count = 0;
    for line in expected
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let mut parts = line.splitn(3, " | ");
        let (mode, prop, want) = (
            parts.next().unwrap(),
            parts.next().expect("MODE | PROPERTY | EXPECTED"),
            parts.next().expect("MODE | PROPERTY | EXPECTED"),
        );
        let exact = mode == "exact";
        let got = Props::new(&loaded.program, "corpus", prop, &[])
            .map_err(|e| e.to_string())
            .and_then(|props| {
                check_prop(&loaded, &props, &props.props[0], exact).map_err(|e| e.to_string())
            });
        match (want.strip_prefix("error: "), got) {
            (Some(words), Err(e)) => assert!(e.contains(words), "{prop}: '{e}' lacks '{words}'"),
            (Some(_), Ok(a)) => panic!("{prop}: answered {}, should fail", a.value),
            (None, Err(e)) => panic!("{prop}: {e}"),
            (None, Ok(a)) => match want {
                "true" | "false" => assert_eq!(a.holds, Some(want == "true"), "{prop}"),
                _ if want.starts_with("= ") => {
                    assert_eq!(a.exact.as_deref(), Some(&want[2..]), "{prop}")
                }
                _ => {
                    let v: f64 = want.parse().unwrap_or_else(|_| panic!("{want}"));
                    let close = v == a.value || (v - a.value).abs() <= a.error_bound.max(1e-9);
                    assert!(close, "{prop}: {} (± {}) vs {v}", a.value, a.error_bound);
                }
            },
        }
        count += 1;
    }
    assert!(count >= 30, "{count} cases");
}
