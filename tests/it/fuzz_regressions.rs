//! Inputs that once crashed a fuzz target (or a hostile input found by hand
//! that the fuzz targets cover), replayed through the very code the targets
//! run (`fuzz/src/lib.rs`, included here). Each file
//! `fixtures/fuzz-regressions/<target>/<name>` is run through `<target>`;
//! the test fails on a panic. `fuzz/README.md` says what each one was.

#[allow(dead_code)]
#[path = "../../fuzz/src/lib.rs"]
mod fuzz;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/fuzz-regressions");

#[test]
fn every_saved_input_runs_without_panic() {
    let mut n = 0;
    for target in fuzz::TARGETS {
        let Ok(rd) = std::fs::read_dir(std::path::Path::new(DIR).join(target)) else { continue };
        let mut files: Vec<_> = rd.map(|e| e.unwrap().path()).collect();
        files.sort();
        for f in files {
            let data = std::fs::read(&f).unwrap();
            // A panic names the file (the test harness prints this line's output).
            eprintln!("replaying {}", f.display());
            fuzz::run(target, &data);
            n += 1;
        }
    }
    assert!(n > 0, "no saved inputs under {DIR}");
}

#[test]
fn saved_inputs_are_in_known_target_folders() {
    for e in std::fs::read_dir(DIR).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        assert!(fuzz::TARGETS.contains(&name.as_str()) || name == "README.md", "{name} is not a fuzz target");
    }
}
