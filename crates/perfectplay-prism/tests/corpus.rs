//! The kept corpus of adversarial inputs (`tests/corpus/`, with `EXPECTED.txt`): each file
//! loads, or fails with the error it names; nothing panics, overflows the stack or hangs.
//! New cases found by the mutation test of `syntax.rs`, or by hand, go there.

use std::path::Path;

use perfectplay_prism::Loaded;

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
