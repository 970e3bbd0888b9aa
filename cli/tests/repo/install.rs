//! `scripts/dojo install` as a new user runs it, on a fresh HOME: dojo lands in
//! HOME/.local/bin, runs from any directory in a clean environment (libtorch found by the
//! binary's rpath, nothing of scripts/env.sh), the script says whether that folder is on
//! PATH, and installing again replaces the copy atomically. The tests install this build's
//! dojo (`--binary`): the release build the plain command makes is the same binary, slower
//! to compile.

use crate::common::path;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/dojo")
}

/// `scripts/dojo install ARGS` with HOME `home` and PATH `path_var`, from `cwd`.
fn install(home: &Path, path_var: &str, cwd: &Path, args: &[&str]) -> Output {
    Command::new("bash")
        .arg(script())
        .arg("install")
        .args(args)
        .env_clear()
        .env("HOME", home)
        .env("PATH", path_var)
        .current_dir(cwd)
        .output()
        .expect("bash runs scripts/dojo")
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

/// Runs `command` as a login on a new machine would: `env -i`, only HOME and a PATH of
/// `bin` and the system's folders, from `cwd`.
fn clean(home: &Path, bin: &Path, cwd: &Path, command: &[&str]) -> Output {
    Command::new("/usr/bin/env")
        .arg("-i")
        .arg(format!("HOME={}", home.display()))
        .arg(format!("PATH={}:/usr/bin:/bin", bin.display()))
        .args(command)
        .current_dir(cwd)
        .output()
        .expect("env runs")
}

#[test]
fn install_puts_dojo_on_a_fresh_homes_path_and_a_second_install_replaces_it() {
    let home = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let binary = env!("CARGO_BIN_EXE_dojo");
    let bin = home.path().join(".local/bin");
    let installed = bin.join("dojo");

    // HOME/.local/bin is not on this PATH: the script says so and gives the line to add.
    let out = install(home.path(), "/usr/bin:/bin", elsewhere.path(), &["--binary", binary]);
    assert!(out.status.success(), "{}", text(&out));
    let said = text(&out);
    let version = format!("dojo {}", env!("CARGO_PKG_VERSION"));
    assert!(said.contains(&format!("installed {version} as {}\n", installed.display())), "{said}");
    assert!(
        said.contains(&format!(
            "{} is not on PATH: add this line to ~/.profile (then log in again, or run it in this shell):\n  export PATH=\"$HOME/.local/bin:$PATH\"\n",
            bin.display()
        )),
        "{said}"
    );
    let meta = std::fs::metadata(&installed).unwrap();
    assert!(meta.is_file());
    assert_eq!(meta.permissions().mode() & 0o777, 0o755);
    assert_eq!(std::fs::read(&installed).unwrap(), std::fs::read(binary).unwrap(), "a copy of the binary");

    // A new shell: no LD_LIBRARY_PATH, no virtualenv, another directory; `dojo` by name.
    let run = clean(home.path(), &bin, elsewhere.path(), &["dojo", "--version"]);
    assert!(run.status.success(), "{}", text(&run));
    assert_eq!(String::from_utf8_lossy(&run.stdout), format!("{version}\n"));
    // Every library it loads is found there (libtorch by the rpath the build gave it).
    let ldd = clean(home.path(), &bin, elsewhere.path(), &["ldd", path(&installed)]);
    let libs = String::from_utf8_lossy(&ldd.stdout).into_owned();
    assert!(ldd.status.success() && libs.contains("libtorch_cpu.so"), "{libs}");
    assert!(!libs.contains("not found"), "{libs}");

    // Again, now with the folder on PATH: the file is replaced by a rename (a new inode; a
    // dojo running from the old one keeps it), and no temporary copy is left beside it.
    let before = meta.ino();
    let on_path = format!("{}:/usr/bin:/bin", bin.display());
    let out = install(home.path(), &on_path, elsewhere.path(), &["--binary", binary]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains(&format!("{} is on PATH: `dojo` runs it from any directory", bin.display())),
        "{}",
        text(&out)
    );
    assert_ne!(std::fs::metadata(&installed).unwrap().ino(), before, "replaced, not written over");
    let left: Vec<_> = std::fs::read_dir(&bin).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left, ["dojo"]);
    let run = clean(home.path(), &bin, elsewhere.path(), &["dojo", "--version"]);
    assert_eq!(String::from_utf8_lossy(&run.stdout), format!("{version}\n"));
}

#[test]
fn install_goes_where_it_is_told_and_says_what_is_wrong() {
    let home = tempfile::tempdir().unwrap();
    let binary = env!("CARGO_BIN_EXE_dojo");

    // --prefix DIR is DIR/bin; another dojo earlier on PATH is named.
    let prefix = home.path().join("opt");
    let earlier = home.path().join("earlier");
    std::fs::create_dir(&earlier).unwrap();
    std::fs::copy(binary, earlier.join("dojo")).unwrap();
    let path_var = format!("{}:{}:/usr/bin:/bin", earlier.display(), prefix.join("bin").display());
    let out = install(home.path(), &path_var, home.path(), &["--prefix", path(&prefix), "--binary", binary]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(prefix.join("bin/dojo").is_file());
    assert!(
        text(&out).contains(&format!(
            "{} is on PATH, but {} comes first: remove that one, or put {} before it",
            prefix.join("bin").display(),
            earlier.join("dojo").display(),
            prefix.join("bin").display()
        )),
        "{}",
        text(&out)
    );
    // --bin-dir outside HOME: the line to add names the folder itself.
    let dir = tempfile::tempdir().unwrap();
    let out = install(home.path(), "/usr/bin:/bin", home.path(), &["--bin-dir", path(dir.path()), "--binary", binary]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains(&format!("  export PATH=\"{}:$PATH\"\n", dir.path().display())), "{}", text(&out));

    let fail = |args: &[&str], says: &str| {
        let out = install(home.path(), "/usr/bin:/bin", home.path(), args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
        assert!(text(&out).contains(says), "{args:?}: {}", text(&out));
    };
    fail(&["--binary", "/nonexistent/dojo"], "scripts/dojo: install: /nonexistent/dojo is not an executable file");
    fail(&["--prefix", "/a", "--bin-dir", "/b"], "scripts/dojo: install: give --bin-dir or --prefix, not both");
    fail(&["--bin-dir"], "scripts/dojo: install: --bin-dir needs a folder");
    fail(&["--to", "x"], "scripts/dojo: install: unknown option --to (see scripts/dojo install --help)");
    // A binary that cannot run outside scripts/env.sh is not installed.
    let broken = home.path().join("broken");
    std::fs::write(&broken, "#!/bin/sh\necho 'error while loading shared libraries' >&2\nexit 127\n").unwrap();
    std::fs::set_permissions(&broken, std::fs::Permissions::from_mode(0o755)).unwrap();
    let into = home.path().join("never");
    fail(
        &["--bin-dir", path(&into), "--binary", path(&broken)],
        "does not run outside scripts/env.sh, so it was not installed: error while loading shared libraries",
    );
    let left: Vec<_> = std::fs::read_dir(&into).unwrap().collect();
    assert!(left.is_empty(), "nothing left behind: {left:?}");

    // Its help lists every option.
    let out = install(home.path(), "/usr/bin:/bin", home.path(), &["--help"]);
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout).into_owned();
    for flag in ["--bin-dir DIR", "--prefix DIR", "--binary FILE", "scripts/dojo install"] {
        assert!(help.contains(flag), "{flag}: {help}");
    }
}

/// `scripts/dojo install` is the script's: were dojo to grow an `install` command of its
/// own, the script would hide it, and this fails so that one of them is renamed.
#[test]
fn dojo_has_no_install_command_for_the_script_to_hide() {
    let out = crate::common::dojo(&["install", "--help"]);
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(said.contains("unrecognized subcommand 'install'"), "{said}");
    let help = String::from_utf8_lossy(&crate::common::dojo(&["--help"]).stdout).into_owned();
    assert!(!help.lines().any(|l| l.trim_start().starts_with("install ")), "{help}");
}
