//! A closed pipe ends a listing command quietly, as it ends every Unix tool:
//! `agentlab drill list | head -1` prints no panic and does not exit 101.

#![cfg(unix)]

use std::io::{BufRead, BufReader};
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, ExitStatus, Stdio};

mod common;

const LISTINGS: &[&[&str]] = &[
    &["drill", "list"],
    &["exercise", "list"],
    &["sheets"],
    &["sheet", "3"],
    &["quiz", "--help"],
    &["drill", "show", "sft-basics"],
];

fn command(args: &[&str], home: &std::path::Path) -> Command {
    let mut c = common::agentlab(home);
    c.args(args).stdin(Stdio::null()).stderr(Stdio::piped());
    c
}

/// Ended quietly: success (everything fit before the reader left) or SIGPIPE, never a panic.
fn assert_quiet(args: &[&str], status: ExitStatus, stderr: &str) {
    assert!(!stderr.contains("panicked") && !stderr.contains("Broken pipe"), "{args:?}: stderr {stderr:?}");
    assert_ne!(status.code(), Some(101), "{args:?}: {status:?}");
    assert!(status.success() || status.signal() == Some(libc::SIGPIPE), "{args:?}: {status:?}, stderr {stderr:?}");
}

/// The reader is gone before the command writes a byte: its first write meets a closed pipe.
#[test]
fn a_pipe_closed_before_the_first_write_ends_each_listing_quietly() {
    let home = tempfile::tempdir().unwrap();
    for args in LISTINGS {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = command(args, home.path()).stdout(writer).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_quiet(args, out.status, &stderr);
        assert_eq!(out.status.signal(), Some(libc::SIGPIPE), "{args:?}: {:?}, stderr {stderr:?}", out.status);
    }
}

/// As `| head -1`: one line read, then the reader closes.
#[test]
fn a_reader_that_takes_one_line_then_closes_ends_each_listing_quietly() {
    let home = tempfile::tempdir().unwrap();
    for args in LISTINGS {
        let mut child = command(args, home.path()).stdout(Stdio::piped()).spawn().unwrap();
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
        assert!(!first.is_empty(), "{args:?} printed nothing");
        let out = child.wait_with_output().unwrap();
        assert_quiet(args, out.status, &String::from_utf8_lossy(&out.stderr));
    }
}
