//! A private one-node Slurm cluster for one test: a controller
//! (`slurmctld`), a node daemon (`slurmd`) and their authentication daemon
//! (`munged`), started for the test and stopped when it ends.
//!
//! Everything the cluster has lives in one temporary directory: its
//! `slurm.conf` (given to every Slurm program through `SLURM_CONF`) and
//! `cgroup.conf` beside it, the munge key and socket (given to `munged` by
//! its options, to Slurm by `AuthInfo=socket=`), the controller's state,
//! the node's spool, logs and pid files. Nothing is written to `/etc`. Its
//! two ports are free ports the system handed out when it started, so two
//! test runs on one machine (or two tests of one run) do not meet.
//!
//! Dropping the [`Cluster`] cancels its jobs, stops its three daemons by
//! the pids in their pid files (`SIGTERM`, then `SIGKILL` after a bounded
//! wait) and removes the directory.
//!
//! Slurm starts daemons as root only (they run jobs as their users), so a
//! cluster needs root and Debian's `slurm-wlm` and `munge`; without them
//! [`Cluster::require`] says why and the test is skipped, or fails when `CI`
//! is set ([`crate::peer::missing`]).
//!
//! ```no_run
//! use rookery_testkit::slurm::Cluster;
//!
//! let Some(cluster) = Cluster::require("doc") else { return };
//! let out = cluster.run("sbatch", ["--parsable", "--wrap", "true"]);
//! let job = out.trim();
//! cluster.wait_for(&format!("job {job} to end"), std::time::Duration::from_secs(60), || {
//!     cluster.job_state(job).as_deref() == Some("COMPLETED")
//! });
//! ```

use crate::TempDir;
use std::ffi::OsStr;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The variable every Slurm program reads its configuration's path from.
pub const CONF_VAR: &str = "SLURM_CONF";

/// How long the node may take to be `idle` after the daemons started (it
/// takes about 3 s here): a liveness bound.
const START_LIMIT: Duration = Duration::from_secs(60);

/// How long a daemon may take to end after `SIGTERM`, and the jobs after
/// `scancel`, before they are killed: a liveness bound.
const STOP_LIMIT: Duration = Duration::from_secs(20);

/// How long one Slurm command (`sinfo`, `scontrol`, ...) may take.
const COMMAND_LIMIT: Duration = Duration::from_secs(60);

/// Between two looks at something the cluster is doing.
const POLL: Duration = Duration::from_millis(200);

/// The programs a cluster needs: the daemons, then the commands.
const PROGRAMS: [&str; 10] = [
    "munged",
    "slurmctld",
    "slurmd",
    "munge",
    "sbatch",
    "sinfo",
    "squeue",
    "scontrol",
    "scancel",
    "unmunge",
];

/// Why a cluster did not start.
#[derive(Debug)]
pub enum StartError {
    /// This machine cannot run one: not root, or a program is missing
    /// (a test is skipped, or fails under CI).
    Unavailable(String),
    /// It should have started and did not: the reason and the daemons'
    /// logs (a broken set-up or a broken harness: a test fails).
    Failed(String),
}

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StartError::Unavailable(why) => write!(f, "no Slurm cluster here: {why}"),
            StartError::Failed(why) => write!(f, "the Slurm cluster did not start: {why}"),
        }
    }
}

/// A one-node Slurm cluster of a test, stopped and removed when dropped.
pub struct Cluster {
    dir: TempDir,
    conf: PathBuf,
    node: String,
    ports: (u16, u16),
    programs: Vec<(String, PathBuf)>,
}

/// The three daemons, in the order they are stopped: name as in
/// `/proc/PID/comm`, and pid file in the cluster's `run` directory.
const DAEMONS: [(&str, &str); 3] = [
    ("slurmd", "slurmd.pid"),
    ("slurmctld", "slurmctld.pid"),
    ("munged", "munged.pid"),
];

impl Cluster {
    /// Why this machine cannot run a cluster (`None` when it can): it is
    /// not Linux, the process is not root, or a program of `slurm-wlm` or
    /// `munge` is missing.
    pub fn unavailable() -> Option<String> {
        programs().err()
    }

    /// Starts a cluster (its directory named after `tag`) and waits until
    /// its node is `idle`.
    ///
    /// # Errors
    /// [`StartError::Unavailable`] when [`Cluster::unavailable`] says why;
    /// [`StartError::Failed`] when a daemon does not start or the node is
    /// not idle within a minute (the daemons that did start are stopped).
    pub fn start(tag: &str) -> Result<Cluster, StartError> {
        let programs = programs().map_err(StartError::Unavailable)?;
        let failed = |what: &str, e: std::io::Error| StartError::Failed(format!("{what}: {e}"));
        let dir = TempDir::new(&format!("slurm-{tag}"));
        // munged wants every directory on its socket's path searchable by
        // all; the key's directory is the daemons' alone.
        set_mode(dir.path(), 0o755).map_err(|e| failed("the cluster's directory", e))?;
        for (sub, mode) in [
            ("munge", 0o700),
            ("run", 0o755),
            ("state", 0o700),
            ("spool", 0o755),
            ("log", 0o755),
        ] {
            let p = dir.join(sub);
            fs::create_dir(&p)
                .and_then(|()| set_mode(&p, mode))
                .map_err(|e| failed(&format!("{}", p.display()), e))?;
        }
        let node = short_hostname().map_err(|e| failed("the host name", e))?;
        let ports = free_ports().map_err(|e| failed("two free ports", e))?;
        let conf = dir.join("slurm.conf");
        let cluster = Cluster {
            conf,
            node,
            ports,
            programs,
            dir,
        };
        // From here on a failure drops `cluster`: what started is stopped.
        cluster.write_config()?;
        cluster.start_daemons()?;
        cluster.wait_idle()?;
        Ok(cluster)
    }

    /// [`Cluster::start`] for a test: `None` (skipped with a note, or a
    /// failure when `CI` is set) when this machine cannot run a cluster.
    ///
    /// # Panics
    /// When the cluster should have started and did not (the message has
    /// the daemons' logs), or when `CI` is set and it cannot start here.
    #[track_caller]
    pub fn require(tag: &str) -> Option<Cluster> {
        match Cluster::start(tag) {
            Ok(c) => Some(c),
            Err(StartError::Unavailable(why)) => crate::peer::missing(&format!(
                "a Slurm cluster (slurm-wlm and munge, as root: {why})"
            )),
            Err(e @ StartError::Failed(_)) => panic!("{e}"),
        }
    }

    /// The cluster's `slurm.conf` (what [`CONF_VAR`] names for its
    /// programs).
    pub fn conf(&self) -> &Path {
        &self.conf
    }

    /// The cluster's own directory (configuration, state, logs).
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// The node's name (the host's short name).
    pub fn node(&self) -> &str {
        &self.node
    }

    /// The controller's and the node daemon's ports.
    pub fn ports(&self) -> (u16, u16) {
        self.ports
    }

    /// `program` (a Slurm command by name, or any program by path) with
    /// [`CONF_VAR`] set to this cluster's configuration, not yet run.
    pub fn command(&self, program: impl AsRef<OsStr>) -> Command {
        let program = program.as_ref();
        let path = self
            .programs
            .iter()
            .find(|(name, _)| OsStr::new(name) == program)
            .map_or_else(|| PathBuf::from(program), |(_, p)| p.clone());
        let mut c = Command::new(path);
        c.env(CONF_VAR, &self.conf);
        c
    }

    /// Runs `cmd` (from [`Cluster::command`]) to its end, at most `limit`;
    /// its stdout and stderr go to files, so a talkative program never
    /// blocks on a full pipe.
    ///
    /// # Panics
    /// If it cannot be started, or is still running after `limit` (it is
    /// killed; the message shows the cluster's logs).
    #[track_caller]
    pub fn output(&self, mut cmd: Command, limit: Duration) -> Output {
        match run_bounded(&mut cmd, self.dir.path(), limit) {
            Ok(out) => out,
            Err(why) => panic!("{why}\n{}", self.logs()),
        }
    }

    /// Runs the Slurm command `program ARGS` (bounded by a minute) and
    /// returns its stdout.
    ///
    /// # Panics
    /// If it fails or does not end (the message has its stderr and the
    /// cluster's logs).
    #[track_caller]
    pub fn run<I, S>(&self, program: &str, args: I) -> String
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut cmd = self.command(program);
        cmd.args(args);
        let line = format!("{cmd:?}");
        let out = self.output(cmd, COMMAND_LIMIT);
        assert!(
            out.status.success(),
            "{line}: {}\n{}{}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
            self.logs()
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The state of job `job` (`123`, or `123_4` for one task of an array)
    /// as the controller has it (`PENDING`, `RUNNING`, `COMPLETED`,
    /// `CANCELLED`, ...; for a whole array, the first task's); `None` when
    /// the controller does not know the job.
    pub fn job_state(&self, job: &str) -> Option<String> {
        self.job_field(job, "JobState")
    }

    /// A field of `scontrol show job JOB` (`JobState`, `Reason`,
    /// `Restarts`, `ExitCode`, ...): `None` when the controller does not
    /// know the job or it has no such field.
    pub fn job_field(&self, job: &str, field: &str) -> Option<String> {
        let mut cmd = self.command("scontrol");
        cmd.args(["--oneliner", "show", "job", job]);
        let out = run_bounded(&mut cmd, self.dir.path(), COMMAND_LIMIT).ok()?;
        if !out.status.success() {
            return None;
        }
        let text = String::from_utf8_lossy(&out.stdout);
        let key = format!("{field}=");
        text.split_whitespace()
            .find_map(|w| w.strip_prefix(key.as_str()))
            .map(str::to_string)
    }

    /// Waits until `done` says yes, looking every 200 ms, at most `limit`
    /// (a liveness bound: a test never hangs on a cluster that is stuck).
    ///
    /// # Panics
    /// If `limit` passes first: the message names `what` and has the
    /// queue and the daemons' logs.
    #[track_caller]
    pub fn wait_for(&self, what: &str, limit: Duration, mut done: impl FnMut() -> bool) {
        let t = Instant::now();
        while !done() {
            if t.elapsed() > limit {
                let mut queue = self.command("squeue");
                queue.args(["--all", "--states=all"]);
                let queue = run_bounded(&mut queue, self.dir.path(), COMMAND_LIMIT)
                    .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
                    .unwrap_or_else(|e| e);
                panic!(
                    "waited {limit:?} for {what}\nqueue:\n{queue}\n{}",
                    self.logs()
                );
            }
            std::thread::sleep(POLL);
        }
    }

    /// The last lines of each daemon's log, for failure messages.
    pub fn logs(&self) -> String {
        let mut s = String::new();
        for name in ["munged", "slurmctld", "slurmd"] {
            let p = self.dir.join("log").join(format!("{name}.log"));
            let text = fs::read_to_string(&p).unwrap_or_default();
            let lines: Vec<&str> = text.lines().collect();
            let _ = writeln!(s, "== {} (last 20 lines)", p.display());
            for l in &lines[lines.len().saturating_sub(20)..] {
                let _ = writeln!(s, "{l}");
            }
        }
        s
    }

    /// The pid of a running daemon of this cluster (`slurmd`, `slurmctld`,
    /// `munged`), from its pid file; `None` when it is not running.
    pub fn daemon_pid(&self, name: &str) -> Option<u32> {
        let (comm, file) = DAEMONS.iter().find(|(n, _)| *n == name)?;
        let pid = fs::read_to_string(self.dir.join("run").join(file))
            .ok()?
            .trim()
            .parse()
            .ok()?;
        is_running(pid, comm).then_some(pid)
    }

    fn path(&self, name: &str) -> &Path {
        self.programs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, p)| p.as_path())
            // `programs` found every one of PROGRAMS, which the callers name.
            .expect("a program of PROGRAMS")
    }

    fn write_config(&self) -> Result<(), StartError> {
        let d = self.dir.path().display();
        let node = &self.node;
        let (ctld_port, slurmd_port) = self.ports;
        // KillWait: a cancelled job's processes are killed 5 s after
        // SIGTERM (not 30). kill_invalid_depend: a job whose dependency
        // can never be met (a merge after an array with a failed task) is
        // cancelled, so that a test's `sbatch --wait` on it ends.
        let conf = format!(
            "# A private one-node cluster of a rookery test (rookery_testkit::slurm).\n\
             ClusterName=rookerytest\n\
             SlurmctldHost={node}(127.0.0.1)\n\
             SlurmctldPort={ctld_port}\n\
             SlurmdPort={slurmd_port}\n\
             SlurmUser=root\n\
             SlurmdUser=root\n\
             AuthType=auth/munge\n\
             AuthInfo=socket={d}/run/munge.socket\n\
             CredType=cred/munge\n\
             MpiDefault=none\n\
             ProctrackType=proctrack/linuxproc\n\
             TaskPlugin=task/none\n\
             SelectType=select/cons_tres\n\
             SelectTypeParameters=CR_Core\n\
             ReturnToService=2\n\
             JobAcctGatherType=jobacct_gather/none\n\
             AccountingStorageType=accounting_storage/none\n\
             KillWait=5\n\
             SchedulerParameters=kill_invalid_depend\n\
             MailProg=/bin/true\n\
             StateSaveLocation={d}/state\n\
             SlurmdSpoolDir={d}/spool\n\
             SlurmctldPidFile={d}/run/slurmctld.pid\n\
             SlurmdPidFile={d}/run/slurmd.pid\n\
             SlurmctldLogFile={d}/log/slurmctld.log\n\
             SlurmdLogFile={d}/log/slurmd.log\n\
             NodeName={node} NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN\n\
             PartitionName=debug Nodes={node} Default=YES MaxTime=INFINITE State=UP\n"
        );
        // Slurm 22.05 has no "disabled" cgroup plugin: slurmd reads this
        // file (beside slurm.conf) even with proctrack/linuxproc.
        let cgroup = "CgroupPlugin=autodetect\nIgnoreSystemd=yes\n";
        let key = random_key().map_err(|e| StartError::Failed(format!("a munge key: {e}")))?;
        let key_path = self.dir.join("munge").join("munge.key");
        fs::write(&self.conf, conf)
            .and_then(|()| fs::write(self.dir.join("cgroup.conf"), cgroup))
            .and_then(|()| fs::write(&key_path, key))
            .and_then(|()| set_mode(&key_path, 0o400))
            .map_err(|e| StartError::Failed(format!("the configuration: {e}")))
    }

    fn start_daemons(&self) -> Result<(), StartError> {
        let d = self.dir.path();
        let mut munged = Command::new(self.path("munged"));
        munged
            .arg(format!(
                "--key-file={}",
                d.join("munge/munge.key").display()
            ))
            .arg(format!("--socket={}", d.join("run/munge.socket").display()))
            .arg(format!("--pid-file={}", d.join("run/munged.pid").display()))
            .arg(format!("--log-file={}", d.join("log/munged.log").display()))
            .arg(format!(
                "--seed-file={}",
                d.join("munge/munged.seed").display()
            ));
        self.daemon(munged, "munged")?;
        for name in ["slurmctld", "slurmd"] {
            let mut c = self.command(name);
            c.arg("-f").arg(&self.conf);
            self.daemon(c, name)?;
        }
        Ok(())
    }

    /// Runs a daemon's start (it forks into the background and its first
    /// process ends): an error when that process fails.
    fn daemon(&self, mut cmd: Command, name: &str) -> Result<(), StartError> {
        let out = run_bounded(&mut cmd, self.dir.path(), COMMAND_LIMIT)
            .map_err(|e| StartError::Failed(format!("{e}\n{}", self.logs())))?;
        if out.status.success() {
            Ok(())
        } else {
            Err(StartError::Failed(format!(
                "{name} did not start ({}): {}{}\n{}",
                out.status,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr),
                self.logs()
            )))
        }
    }

    fn wait_idle(&self) -> Result<(), StartError> {
        let t = Instant::now();
        loop {
            let mut sinfo = self.command("sinfo");
            sinfo.args(["--noheader", "--nodes", &self.node, "--format=%T"]);
            let state = run_bounded(&mut sinfo, self.dir.path(), COMMAND_LIMIT)
                .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
                .unwrap_or_default();
            if state == "idle" {
                return Ok(());
            }
            if t.elapsed() > START_LIMIT {
                return Err(StartError::Failed(format!(
                    "node {} is {state:?}, not idle, after {START_LIMIT:?}\n{}",
                    self.node,
                    self.logs()
                )));
            }
            std::thread::sleep(POLL);
        }
    }

    /// Cancels every job and waits (bounded) until the queue is empty, so
    /// that no job's processes outlive the daemons.
    fn cancel_jobs(&self) {
        if self.daemon_pid("slurmctld").is_none() {
            return;
        }
        let mut cancel = self.command("scancel");
        cancel.args(["--user", "root"]);
        let _ = run_bounded(&mut cancel, self.dir.path(), COMMAND_LIMIT);
        let t = Instant::now();
        while t.elapsed() < STOP_LIMIT {
            let mut queue = self.command("squeue");
            queue.args(["--noheader", "--format=%i"]);
            match run_bounded(&mut queue, self.dir.path(), COMMAND_LIMIT) {
                Ok(o) if o.status.success() && o.stdout.iter().all(u8::is_ascii_whitespace) => {
                    return
                }
                Ok(_) => std::thread::sleep(POLL),
                Err(_) => return,
            }
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        self.cancel_jobs();
        for (name, _) in DAEMONS {
            if let Some(pid) = self.daemon_pid(name) {
                stop(pid, name);
            }
        }
        // The directory goes with `self.dir`.
    }
}

/// Stops process `pid` (named `comm`): `SIGTERM`, then `SIGKILL` if it
/// is still there after [`STOP_LIMIT`].
fn stop(pid: u32, comm: &str) {
    for signal in ["-TERM", "-KILL"] {
        let _ = Command::new("kill")
            .args([signal, &pid.to_string()])
            .stderr(Stdio::null())
            .status();
        let t = Instant::now();
        while t.elapsed() < STOP_LIMIT {
            if !is_running(pid, comm) {
                return;
            }
            std::thread::sleep(POLL);
        }
    }
}

/// Whether process `pid` is alive (not a zombie) and named `comm`.
fn is_running(pid: u32, comm: &str) -> bool {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // "PID (COMM) STATE ...": COMM may hold spaces and parentheses.
    let Some((head, tail)) = stat.rsplit_once(") ") else {
        return false;
    };
    let name = head.split_once(" (").map_or("", |(_, n)| n);
    name == comm && !tail.starts_with('Z') && !tail.starts_with('X')
}

/// The paths of [`PROGRAMS`], or why this machine cannot run a cluster.
fn programs() -> Result<Vec<(String, PathBuf)>, String> {
    if !cfg!(target_os = "linux") {
        return Err("not Linux".into());
    }
    let status = fs::read_to_string("/proc/self/status").unwrap_or_default();
    let uid = status
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|l| l.split_whitespace().nth(1));
    if uid != Some("0") {
        return Err(format!(
            "Slurm's daemons run as root and this test runs as uid {}",
            uid.unwrap_or("?")
        ));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    let dirs: Vec<PathBuf> = std::env::split_paths(&path)
        .chain(["/usr/sbin", "/usr/bin", "/sbin", "/bin"].map(PathBuf::from))
        .collect();
    let mut found = Vec::new();
    let mut missing = Vec::new();
    for name in PROGRAMS {
        match dirs.iter().map(|d| d.join(name)).find(|p| p.is_file()) {
            Some(p) => found.push((name.to_string(), p)),
            None => missing.push(name),
        }
    }
    if missing.is_empty() {
        Ok(found)
    } else {
        Err(format!(
            "{} not found (apt-get install slurm-wlm munge)",
            missing.join(", ")
        ))
    }
}

/// Runs `cmd` in `dir` with its output in files there, at most `limit`;
/// the error says what went wrong (it could not start, or did not end and
/// was killed).
fn run_bounded(cmd: &mut Command, dir: &Path, limit: Duration) -> Result<Output, String> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let out_path = dir.join(format!("cmd-{n}.out"));
    let err_path = dir.join(format!("cmd-{n}.err"));
    let line = format!("{cmd:?}");
    let files = fs::File::create(&out_path).and_then(|o| Ok((o, fs::File::create(&err_path)?)));
    let (out, err) = files.map_err(|e| format!("{line}: cannot create its output files: {e}"))?;
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .spawn()
        .map_err(|e| format!("cannot run {line}: {e}"))?;
    let t = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if t.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("{line} did not end within {limit:?} (killed)"));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(format!("cannot wait for {line}: {e}")),
        }
    };
    let read = |p: &Path| {
        let bytes = fs::read(p).unwrap_or_default();
        let _ = fs::remove_file(p);
        bytes
    };
    Ok(Output {
        status,
        stdout: read(&out_path),
        stderr: read(&err_path),
    })
}

fn set_mode(path: &Path, mode: u32) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(path, fs::Permissions::from_mode(mode))
    }
    #[cfg(not(unix))]
    {
        let _ = (path, mode);
        Ok(())
    }
}

/// The host's name up to its first dot (`hostname -s`): slurmd finds its
/// node in `slurm.conf` by it.
fn short_hostname() -> std::io::Result<String> {
    let name = fs::read_to_string("/proc/sys/kernel/hostname")?;
    let name = name.trim();
    let short = name.split('.').next().unwrap_or(name);
    if short.is_empty() {
        return Err(std::io::Error::other("the host has no name"));
    }
    Ok(short.to_string())
}

/// Two ports that were free a moment ago (the system's pick): the
/// controller's and the node daemon's.
fn free_ports() -> std::io::Result<(u16, u16)> {
    // Both held at once, so that they differ.
    let a = std::net::TcpListener::bind("127.0.0.1:0")?;
    let b = std::net::TcpListener::bind("127.0.0.1:0")?;
    Ok((a.local_addr()?.port(), b.local_addr()?.port()))
}

/// A munge key: 1,024 bytes from the system's random source.
fn random_key() -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut key = vec![0; 1024];
    fs::File::open("/dev/urandom")?.read_exact(&mut key)?;
    Ok(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The harness itself: a cluster runs a job, and dropping it stops
    /// every daemon and removes its directory.
    #[test]
    fn a_cluster_runs_a_job_and_leaves_nothing_behind() {
        let Some(cluster) = Cluster::require("harness") else {
            return;
        };
        let out = cluster.dir().join("hello");
        let job = cluster.run(
            "sbatch",
            [
                "--parsable".to_string(),
                "--output=/dev/null".to_string(),
                format!("--wrap=echo $SLURM_JOB_ID > {}", out.display()),
            ],
        );
        let job = job.trim().to_string();
        cluster.wait_for(
            &format!("job {job} to complete"),
            Duration::from_secs(120),
            || cluster.job_state(&job).as_deref() == Some("COMPLETED"),
        );
        assert_eq!(fs::read_to_string(&out).unwrap().trim(), job);
        let pids: Vec<(u32, &str)> = DAEMONS
            .iter()
            .map(|(name, _)| {
                let pid = cluster.daemon_pid(name);
                (
                    pid.unwrap_or_else(|| panic!("{name} is not running")),
                    *name,
                )
            })
            .collect();
        let dir = cluster.dir().to_path_buf();
        drop(cluster);
        for (pid, name) in pids {
            assert!(!is_running(pid, name), "{name} ({pid}) still runs");
        }
        assert!(!dir.exists(), "{} is left", dir.display());
    }

    /// Two clusters at once (two tests, or two test runs) have ports of
    /// their own and both work.
    #[test]
    fn two_clusters_run_side_by_side() {
        let Some(a) = Cluster::require("side-a") else {
            return;
        };
        let Some(b) = Cluster::require("side-b") else {
            return;
        };
        assert_ne!(a.ports(), b.ports());
        assert_ne!(a.conf(), b.conf());
        for c in [&a, &b] {
            let state = c.run("sinfo", ["--noheader", "--format=%T"]);
            assert_eq!(state.trim(), "idle");
        }
    }

    #[test]
    fn reads_process_names_from_proc_stat() {
        let me = std::process::id();
        let comm = fs::read_to_string(format!("/proc/{me}/comm")).unwrap();
        assert!(is_running(me, comm.trim()));
        assert!(!is_running(me, "no-such-name"));
    }
}
