//! The cluster examples run as written: `examples/slurm/` on a real Slurm
//! cluster (a private one-node cluster started for the test,
//! [`rookery_testkit::slurm`]) and `examples/kubernetes/` as the pods of
//! its Indexed Job would run it. The sharded and merged output is the
//! unsharded run's, byte for byte, also when a task is killed in the
//! middle of its shard and requeued.
//!
//! Without root or Slurm's packages the Slurm tests are skipped with a
//! note (they fail when `CI` is set: `.ci/run` installs `slurm-wlm` and
//! `munge`).

use crate::common::{rookery, s, ROOKERY};
use rookery_io::shard::Shard;
use rookery_testkit::slurm::Cluster;
use rookery_testkit::TempDir;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// How long a job of these tests may take to run (a liveness bound: the
/// test never hangs on a stuck cluster; they take seconds).
const JOB_LIMIT: Duration = Duration::from_secs(600);

/// Positions analysed: the first of the Win At Chess suite.
const POSITIONS: usize = 150;

/// Nodes per position: the built-in engine at a fixed node count gives
/// the same analysis on every run, in any shard.
const NODES: &str = "20000";

/// Shards of the Slurm runs (tasks of the job array).
const SHARDS: u32 = 3;

/// A file of `examples/`.
fn example(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(path)
}

/// The first [`POSITIONS`] records of WAC, written to `dir/in.epd`.
fn input(dir: &TempDir) -> PathBuf {
    let wac = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../epd/tests/data/suites/wac.epd"
    ))
    .unwrap();
    let lines: Vec<&str> = wac.lines().take(POSITIONS).collect();
    assert_eq!(lines.len(), POSITIONS);
    dir.write("in.epd", lines.join("\n") + "\n")
}

/// The unsharded analysis of `input`, as one run writes it.
fn unsharded(dir: &TempDir, input: &Path) -> Vec<u8> {
    let out = dir.join("unsharded.epd");
    rookery(
        &[
            "epd",
            "analyse",
            s(input),
            "-o",
            s(&out),
            "--nodes",
            NODES,
            "--jobs",
            "1",
        ],
        b"",
    )
    .assert_code(0);
    std::fs::read(&out).unwrap()
}

/// The byte comparison, with the first line that differs in the message.
#[track_caller]
fn assert_same_output(expected: &[u8], actual: &Path, what: &str) {
    let got = std::fs::read(actual)
        .unwrap_or_else(|e| panic!("{what}: cannot read {}: {e}", actual.display()));
    if got != expected {
        let first = String::from_utf8_lossy(expected)
            .lines()
            .zip(String::from_utf8_lossy(&got).lines())
            .position(|(a, b)| a != b);
        panic!(
            "{what}: {} differs from the unsharded run ({} bytes against {}; first differing line: {first:?})",
            actual.display(),
            got.len(),
            expected.len()
        );
    }
}

/// `examples/slurm/run.sh` with the test's input, output and rookery, in
/// `dir` (where the tasks' logs go), not yet run.
fn run_sh(cluster: &Cluster, dir: &TempDir, input: &Path, output: &Path) -> Command {
    let mut c = cluster.command(example("slurm/run.sh"));
    c.current_dir(dir.path())
        .env("ROOKERY", ROOKERY)
        .env("INPUT", input)
        .env("OUTPUT", output)
        .env("SHARDS", SHARDS.to_string())
        .env("LIMIT", format!("--nodes {NODES}"))
        .env_remove("WAIT");
    c
}

/// The test cluster (`None`: the test is skipped, see
/// [`Cluster::require`]; `tag` names its run) and a directory of the
/// test's own, `slurm-TAG`.
#[track_caller]
fn on_cluster(tag: &str) -> Option<(Cluster, TempDir)> {
    let cluster = Cluster::require(tag)?;
    Some((cluster, TempDir::new(&format!("slurm-{tag}"))))
}

/// `examples/slurm/run-match.sh` in `dir` (where the tasks' logs go): the
/// built-in engine as NEW and as BASE, with the words `new` and `base`,
/// `rounds` pairs from the small openings (seed 7) in 3 shards, the games
/// in `pgn`; not yet run, and not waiting for its jobs.
fn run_match_sh(
    cluster: &Cluster,
    dir: &TempDir,
    (new, base): (&str, &str),
    rounds: usize,
    pgn: &Path,
) -> Command {
    let mut c = cluster.command(example("slurm/run-match.sh"));
    c.current_dir(dir.path())
        .env("ROOKERY", ROOKERY)
        .env("NEW", "builtin")
        .env("NEW_WORDS", new)
        .env("BASE", "builtin")
        .env("BASE_WORDS", base)
        .env("EACH", "option.Hash=16")
        .env("ROUNDS", rounds.to_string())
        .env("SRAND", "7")
        .env(
            "OPENINGS",
            concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/openings-small.epd"),
        )
        .env("PGN", pgn)
        .env("SHARDS", "3")
        .env_remove("WAIT");
    c
}

/// The word after `prefix` in `text` (a job id in run.sh's output).
#[track_caller]
fn word_after(text: &str, prefix: &str) -> String {
    text.lines()
        .find_map(|l| l.strip_prefix(prefix))
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("no {prefix:?} in {text:?}"))
        .to_string()
}

/// The tasks' logs in `dir` (for failure messages).
fn task_logs(dir: &TempDir) -> String {
    dir.names()
        .iter()
        .filter(|n| n.ends_with(".log"))
        .map(|n| {
            format!(
                "== {n}\n{}",
                std::fs::read_to_string(dir.join(n)).unwrap_or_default()
            )
        })
        .collect()
}

/// Waits (bounded) until a requeued array task `task` has run to its end
/// again, which must be a success.
#[track_caller]
fn wait_task_completed(cluster: &Cluster, task: &str, dir: &TempDir) {
    cluster.wait_for(&format!("task {task} to run again"), JOB_LIMIT, || {
        matches!(
            cluster.job_state(task).as_deref(),
            Some("COMPLETED" | "FAILED" | "CANCELLED" | "TIMEOUT" | "NODE_FAIL")
        )
    });
    assert_eq!(
        cluster.job_state(task).as_deref(),
        Some("COMPLETED"),
        "the requeued task {task}:\n{}",
        task_logs(dir)
    );
}

/// Runs `run`, a script (`what`) that submits an array job and the merge
/// after it without waiting for them: it must succeed. Returns the array's
/// task 1 (shard 2/3, `ARRAY_1`) and the merge's job id.
#[track_caller]
fn submit_array(cluster: &Cluster, run: Command, what: &str) -> (String, String) {
    let out = cluster.output(run, JOB_LIMIT);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{what}: {}\n{stdout}", out.status);
    let array = word_after(&stdout, "submitted array job ");
    let first_merge = word_after(&stdout, "Submitted batch job ");
    (format!("{array}_1"), first_merge)
}

/// Cancels the running array task `task` (`scancel`) and waits (bounded)
/// for it to end, which must be as cancelled: a task that finished first
/// means the test needs `more` to cut it in the middle.
#[track_caller]
fn cancel_task(cluster: &Cluster, task: &str, dir: &TempDir, more: &str) {
    cluster.run("scancel", [task]);
    cluster.wait_for(&format!("task {task} to end"), JOB_LIMIT, || {
        matches!(
            cluster.job_state(task).as_deref(),
            Some("CANCELLED" | "COMPLETED" | "FAILED")
        )
    });
    assert_eq!(
        cluster.job_state(task).as_deref(),
        Some("CANCELLED"),
        "task {task} ended before it was cancelled: the test needs {more}\n{}",
        task_logs(dir)
    );
}

/// Requeues the cancelled `task` (`scontrol requeue`) and lets it go at
/// once (Slurm holds a requeued task back a while). Slurm counts the
/// cancelled task against `first_merge`'s `afterok`, so that merge can
/// never start: it is cancelled (Slurm may have done so already: the
/// cluster kills a job whose dependency can never be met). Once the task
/// has completed again, examples/slurm/`script` (its input named by the
/// environment variable `input`) is submitted after it and waited for: it
/// must succeed, and the task must have been run again once.
#[track_caller]
fn requeue_then_merge(
    cluster: &Cluster,
    task: &str,
    first_merge: &str,
    dir: &TempDir,
    input: (&str, &Path),
    script: &str,
) {
    cluster.run("scontrol", ["requeue", task]);
    cluster.wait_for(&format!("task {task} to be pending"), JOB_LIMIT, || {
        cluster.job_state(task).as_deref() == Some("PENDING")
    });
    cluster.run(
        "scontrol",
        ["update", &format!("jobid={task}"), "StartTime=now"],
    );
    let mut cancel = cluster.command("scancel");
    cancel.arg(first_merge);
    cluster.output(cancel, JOB_LIMIT);
    wait_task_completed(cluster, task, dir);
    let mut merge = cluster.command("sbatch");
    merge
        .current_dir(dir.path())
        .env("ROOKERY", ROOKERY)
        .env(input.0, input.1)
        .args(["--wait", &format!("--dependency=afterok:{task}")])
        .arg(example(&format!("slurm/{script}")));
    let out = cluster.output(merge, JOB_LIMIT);
    assert!(
        out.status.success(),
        "the merge after the requeued task: {}\n{}",
        out.status,
        task_logs(dir)
    );
    assert_eq!(
        cluster.job_field(task, "Restarts").as_deref(),
        Some("1"),
        "task {task} was not run again"
    );
}

/// The harness and the shard's reading of the scheduler: every task of a
/// real job array (numbered 3, 6, 9: a minimum and a step) finds its own
/// shard in the environment Slurm gives it, the three together 1/3, 2/3
/// and 3/3 in task order.
#[test]
fn array_tasks_read_their_shard_from_slurms_environment() {
    let Some((cluster, dir)) = on_cluster("array-env") else {
        return;
    };
    let job = dir.script(
        "job.sh",
        "env | grep '^SLURM_ARRAY_' > \"task-$SLURM_ARRAY_TASK_ID.env\"\n",
    );
    let mut sbatch = cluster.command("sbatch");
    sbatch
        .current_dir(dir.path())
        .args(["--wait", "--array=3-9:3", "--output=/dev/null"])
        .arg(&job);
    let out = cluster.output(sbatch, JOB_LIMIT);
    assert!(
        out.status.success(),
        "sbatch: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    for (task, number) in [(3, 1), (6, 2), (9, 3)] {
        let env = std::fs::read_to_string(dir.join(format!("task-{task}.env")))
            .unwrap_or_else(|e| panic!("task {task} wrote no environment: {e}"));
        let var = |name: &str| {
            env.lines()
                .find_map(|l| l.strip_prefix(name)?.strip_prefix('='))
                .map(str::to_string)
        };
        let shard = Shard::from_env(var, None)
            .unwrap_or_else(|e| panic!("task {task}: {e}\n{env}"))
            .unwrap_or_else(|| panic!("task {task}: no shard in\n{env}"));
        assert_eq!(
            (shard.number(), shard.count()),
            (number, 3),
            "task {task}:\n{env}"
        );
    }
}

/// examples/slurm/run.sh as written: the array of analyse.sbatch and the
/// dependent merge.sbatch write the unsharded output; then again with
/// one task cancelled in the middle of its shard (`scancel JOB_K`) and
/// requeued (`scontrol requeue JOB_K`): it resumes, and the merge is still
/// the unsharded output.
#[test]
fn sharded_analysis_on_slurm_is_the_unsharded_output_after_a_task_is_killed_too() {
    let Some((cluster, dir)) = on_cluster("analyse") else {
        return;
    };
    let input = input(&dir);
    let expected = unsharded(&dir, &input);

    // As written: the array and the merge after it, waited for.
    let output = dir.join("analysed.epd");
    let mut run = run_sh(&cluster, &dir, &input, &output);
    run.env("WAIT", "1");
    let out = cluster.output(run, JOB_LIMIT);
    assert!(
        out.status.success(),
        "run.sh: {}\n{}{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
        task_logs(&dir)
    );
    assert_same_output(&expected, &output, "the sharded run");

    // Again, and task 1 (shard 2/3) is cancelled once it has analysed
    // some of its records.
    let output = dir.join("interrupted.epd");
    let mut run = run_sh(&cluster, &dir, &input, &output);
    // The manifest says how far the shard is every 5 positions.
    run.env("FLAGS", "--log-every 5");
    let (task, first_merge) = submit_array(&cluster, run, "run.sh");
    let shard = Shard::new(1, SHARDS).unwrap();
    let manifest = PathBuf::from(format!("{}.json", shard.part_path(&output).display()));
    let read_manifest = || -> Option<serde_json::Value> {
        serde_json::from_str(&std::fs::read_to_string(&manifest).ok()?).ok()
    };
    let done = |m: &serde_json::Value| m["done"].as_u64().unwrap_or(0);
    cluster.wait_for(
        &format!("task {task} to have analysed some of its records"),
        JOB_LIMIT,
        || {
            cluster.job_state(&task).as_deref() == Some("RUNNING")
                && read_manifest().is_some_and(|m| done(&m) > 0)
        },
    );
    cancel_task(&cluster, &task, &dir, "more work per shard");
    let cut = read_manifest().expect("the cancelled shard's manifest");
    assert!(
        done(&cut) < cut["count"].as_u64().unwrap_or(0)
            && !cut["state"]
                .as_str()
                .is_some_and(|st| st.eq_ignore_ascii_case("done")),
        "the cancelled shard was not cut in the middle: {cut}"
    );

    // Requeued: Slurm holds a requeued task back for a while; it is let go
    // at once. Slurm counts the cancelled task against the first merge's
    // `afterok` (it can never start): that merge is cancelled, and the
    // merge submitted again after the requeued task.
    requeue_then_merge(
        &cluster,
        &task,
        &first_merge,
        &dir,
        ("OUTPUT", &output),
        "merge.sbatch",
    );
    // The task's log (appended to by both runs) ends with the second
    // run's summary: it kept what the first had written (--resume).
    let log = std::fs::read_to_string(dir.join(format!("rookery-analyse-{task}.log"))).unwrap();
    let kept: u64 = log
        .lines()
        .rev()
        .find_map(|l| {
            let (_, rest) = l.split_once(" analysed, ")?;
            rest.strip_suffix(" failed")?;
            rest.split(' ').next()?.parse().ok()
        })
        .unwrap_or_else(|| panic!("no summary in the requeued task's log:\n{log}"));
    assert!(
        kept > 0,
        "the requeued task kept nothing of its first run:\n{log}"
    );
    assert_same_output(
        &expected,
        &output,
        "the run with a task killed and requeued",
    );
}

/// The first line of `yaml` that starts (after indentation) with `key:`,
/// its value without a trailing comment.
fn yaml_value<'a>(yaml: &'a str, key: &str) -> &'a str {
    yaml.lines()
        .find_map(|l| l.trim_start().strip_prefix(key)?.strip_prefix(':'))
        .map(|v| v.split(" #").next().unwrap_or(v).trim())
        .unwrap_or_else(|| panic!("no {key}: in the manifest"))
}

/// A container's `command:` (a flow sequence, as JSON), its program
/// `rookery` the built one, `/data` the test's directory.
fn pod_command(yaml: &str, dir: &TempDir) -> Vec<String> {
    let command: Vec<String> = serde_json::from_str(yaml_value(yaml, "command")).unwrap();
    let data = format!("{}/", dir.path().display());
    command
        .iter()
        .map(|a| {
            if a == "rookery" {
                ROOKERY.to_string()
            } else {
                a.replace("rookery ", &format!("{ROOKERY} "))
                    .replace("/data/", &data)
            }
        })
        .collect()
}

/// examples/kubernetes as its pods run it: the Indexed Job's command line
/// once for each index (`JOB_COMPLETION_INDEX`, `ROOKERY_SHARDS` as the
/// manifest sets it, equal to its `completions`), then the merge Job's:
/// the unsharded output (the built-in engine at a fixed node count in
/// place of the manifest's depth, to be quick).
#[test]
fn kubernetes_indexed_job_runs_as_its_pods_would() {
    let job = std::fs::read_to_string(example("kubernetes/analyse-job.yaml")).unwrap();
    let merge = std::fs::read_to_string(example("kubernetes/merge-job.yaml")).unwrap();
    assert_eq!(yaml_value(&job, "completionMode"), "Indexed");
    let completions: u32 = yaml_value(&job, "completions").parse().unwrap();
    let shards = job
        .split("- name: ROOKERY_SHARDS")
        .nth(1)
        .map(|rest| yaml_value(rest, "value").trim_matches('"'))
        .expect("the manifest sets ROOKERY_SHARDS");
    assert_eq!(
        shards,
        completions.to_string(),
        "ROOKERY_SHARDS is not completions"
    );

    let dir = TempDir::new("kubernetes-analyse");
    let input = input(&dir);
    std::fs::rename(&input, dir.join("positions.epd")).unwrap();
    let expected = unsharded(&dir, &dir.join("positions.epd"));
    let mut pod = pod_command(&job, &dir);
    let depth = pod.iter().position(|a| a == "--depth").expect("--depth");
    pod.splice(depth..depth + 2, ["--nodes".to_string(), NODES.to_string()]);
    for index in 0..completions {
        let mut cmd = Command::new(&pod[0]);
        cmd.args(&pod[1..])
            .env("JOB_COMPLETION_INDEX", index.to_string())
            .env("ROOKERY_SHARDS", shards);
        for (k, _) in std::env::vars_os() {
            if k.to_string_lossy().starts_with("SLURM_") {
                cmd.env_remove(k);
            }
        }
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "pod {index}: {:?}: {}\n{}",
            pod,
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let merge = pod_command(&merge, &dir);
    let out = Command::new(&merge[0]).args(&merge[1..]).output().unwrap();
    assert!(
        out.status.success(),
        "the merge Job: {merge:?}: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    assert_same_output(&expected, &dir.join("analysed.epd"), "the Indexed Job");
}

/// examples/slurm/run-match.sh as written: a pooled SPRT across a job
/// array of 3 tasks, a strong engine (depth 3) against a weak one (one
/// node a move), and the dependent merge. The pooled test decides long
/// before the match's 200 pairs, every task stops, and the merge writes
/// one PGN of the games it counted and the verdict.
#[test]
fn pooled_sprt_on_slurm_stops_every_task_and_merges() {
    let Some((cluster, dir)) = on_cluster("sprt") else {
        return;
    };
    let pgn = dir.join("sprt.pgn");
    let rounds = 200;
    let mut run = run_match_sh(&cluster, &dir, ("depth=3", "nodes=1"), rounds, &pgn);
    // Wide hypotheses: a one-sided match decides in a few pairs.
    run.env("SPRT", "elo0=0 elo1=100 alpha=0.05 beta=0.05")
        .env("WAIT", "1");
    let out = cluster.output(run, JOB_LIMIT);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "run-match.sh: {}\n{stdout}{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr),
        task_logs(&dir)
    );
    let merge = word_after(&stdout, "Submitted batch job ");
    let log = std::fs::read_to_string(dir.join(format!("rookery-sprt-merge-{merge}.log")))
        .unwrap_or_else(|e| panic!("the merge's log: {e}\n{}", task_logs(&dir)));
    assert!(
        log.contains("SPRT: H1 accepted"),
        "the pooled SPRT did not accept H1:\n{log}"
    );
    let games: usize = word_after(&log, "Games: ")
        .trim_end_matches(',')
        .parse()
        .unwrap();
    let merged = std::fs::read_to_string(&pgn).unwrap();
    assert_eq!(
        merged.matches("\n[Result ").count() + usize::from(merged.starts_with("[Result ")),
        games,
        "the merged PGN does not hold the games the merge counted:\n{log}"
    );
    // Every pair was pooled (examples/slurm: POOL defaults to PGN.pool).
    let pooled = std::fs::read_dir(dir.join("sprt.pgn.pool"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("pair-"))
        .count();
    assert_eq!(2 * pooled, games, "pairs in the pool against games merged");
    assert!(
        games < 2 * rounds,
        "the tasks did not stop when the pooled SPRT decided ({games} games):\n{log}"
    );
}

/// examples/slurm/match.sbatch when a task is cancelled in the middle of
/// its shard (`scancel JOB_K`) and requeued: the task finishes its shard
/// from its journal, and the merge holds every game of the match once.
#[test]
fn a_match_task_killed_and_requeued_finishes_its_shard_from_its_journal() {
    let Some((cluster, dir)) = on_cluster("match-requeue") else {
        return;
    };
    let pgn = dir.join("match.pgn");
    // Two engines of about the same strength (the SPRT does not decide in
    // 12 games), slow enough that a shard of 4 games is still playing
    // when its first game is written.
    let pairs = 6;
    let run = run_match_sh(&cluster, &dir, ("nodes=20000", "nodes=15000"), pairs, &pgn);
    let (task, first_merge) = submit_array(&cluster, run, "run-match.sh");
    let part = Shard::new(1, 3).unwrap().part_path(&pgn);
    let journal = PathBuf::from(format!("{}.journal", part.display()));
    cluster.wait_for(
        &format!("task {task} to have played a game"),
        JOB_LIMIT,
        || {
            cluster.job_state(&task).as_deref() == Some("RUNNING")
                && std::fs::read_to_string(&part).is_ok_and(|t| t.contains("[Result "))
        },
    );
    cancel_task(&cluster, &task, &dir, "longer games");
    assert!(journal.exists(), "no journal {}", journal.display());

    requeue_then_merge(
        &cluster,
        &task,
        &first_merge,
        &dir,
        ("PGN", &pgn),
        "match-merge.sbatch",
    );
    // Every game of the match once, in order: rounds 1..=12.
    let merged = std::fs::read_to_string(&pgn).unwrap();
    let rounds: Vec<usize> = merged
        .lines()
        .filter_map(|l| {
            l.strip_prefix("[Round \"")?
                .strip_suffix("\"]")?
                .parse()
                .ok()
        })
        .collect();
    assert_eq!(
        rounds,
        (1..=2 * pairs).collect::<Vec<_>>(),
        "the merged match:\n{}",
        task_logs(&dir)
    );
}

/// The guide's chapter "Running on a cluster" names the examples that
/// these tests run, and every file of `examples/` it names is there.
#[test]
fn the_guide_names_the_examples_that_run() {
    let section = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/clusters.md"
    ))
    .unwrap();
    let named: Vec<&str> = section
        .split(|c: char| c.is_whitespace() || matches!(c, '`' | '(' | ')' | ',' | ';'))
        .filter_map(|w| w.strip_prefix("examples/"))
        .map(|w| w.trim_end_matches(['.', ':']))
        .collect();
    for file in [
        "slurm/analyse.sbatch",
        "slurm/merge.sbatch",
        "slurm/run.sh",
        "slurm/match.sbatch",
        "slurm/match-merge.sbatch",
        "slurm/run-match.sh",
        "kubernetes/analyse-job.yaml",
        "kubernetes/merge-job.yaml",
    ] {
        assert!(
            named.contains(&file),
            "the README does not name examples/{file}"
        );
    }
    for file in named.iter().filter(|f| f.contains('.')) {
        assert!(
            example(file).is_file(),
            "the README names examples/{file}, which is not there"
        );
    }
}
