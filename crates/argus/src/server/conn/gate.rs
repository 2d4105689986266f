//! Who may connect and try to sign on, and what a stranger can cost.
//!
//! Every TCP connection is admitted here before anything is spawned for it
//! ([`Gate::admit`]). A connection not signed on yet is *pending*; there
//! are at most `max_pending` of them, `max_pending_per_address` from one
//! address (an IPv4 address or an IPv6 /64), and `max_connections` in all
//! with the signed-on ones. At a limit the oldest pending connection is
//! closed for the new one ([`Kill`]), so idle or failing connections never
//! keep a registered player out: a player's sign-on arrives as soon as it
//! connects. A new connection is refused only when every connection is
//! signed on.
//!
//! Failed sign-ons are slowed per address *and name* ([`Gate::failed`]):
//! the answer comes after a delay that doubles with each failure
//! ([`BACKOFF_FIRST`] to [`BACKOFF_LAST`]). The sign-ons of one address
//! and name are checked one at a time, each after the delay of the last
//! failure ([`Gate::turn`]), so that guesses cannot be made faster in
//! parallel; they wait their turn (first come, first served) rather than
//! being refused, so a player whose token is being guessed from its own
//! address signs on after at most the guess ahead of it. Another name
//! from the same address (players behind one NAT, one host or one IPv6
//! /64) never waits for them. Names that are no player's share one count
//! per address ([`Bucket::Unknown`]), so that made-up names neither
//! escape the delay nor fill the memory; the observer's sign-ons have one
//! of their own. Failures are forgotten after [`FAILURES_FORGOTTEN`]
//! without one.
//!
//! What connections that never sign on write to the logs and the console
//! is rationed ([`Gate::may_log_unsigned`]): a burst, then a few a second;
//! the rest are counted and the count is logged when there is room again.
//!
//! The end of the event waits for the players' writers, which may be
//! keeping a quiet period before `disconnect` ([`Gate::drained`]).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::watch;

/// The delay before answering the first failed sign-on from an address.
pub(in crate::server) const BACKOFF_FIRST: Duration = Duration::from_millis(250);

/// The longest delay before answering a failed sign-on.
pub(in crate::server) const BACKOFF_LAST: Duration = Duration::from_secs(8);

/// An address's failed sign-ons are forgotten after this long without one.
pub(in crate::server) const FAILURES_FORGOTTEN: Duration = Duration::from_secs(600);

/// The most addresses and names whose failures are remembered (the oldest
/// are forgotten first beyond it).
const MAX_GUARDED: usize = 4096;

/// What a sign-on claims to be, for the count of failures: one count per
/// address for each registered player, one for the observer, one for every
/// other name.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(in crate::server) enum Bucket {
    /// A registered player's name.
    Player(String),
    /// The observer (following the journal).
    Observer,
    /// Any name that is no player's.
    Unknown,
}

/// The key failed sign-ons are counted under.
type GuardKey = (IpAddr, Bucket);

/// Log lines (and notices) of connections that never signed on: at most
/// this many at once...
const UNSIGNED_BURST: f64 = 64.0;

/// ...and this many a second after the burst.
const UNSIGNED_PER_SECOND: f64 = 8.0;

/// The limits on connections, from the event file.
#[derive(Clone, Copy, Debug)]
pub(in crate::server) struct Caps {
    /// Open at once, signed on or not.
    pub(in crate::server) total: usize,
    /// Not signed on yet.
    pub(in crate::server) pending: usize,
    /// Not signed on yet, from one address.
    pub(in crate::server) per_address: usize,
}

/// Ends a connection from outside: closed for a newer one, replaced by a
/// new sign-on, or its writer failed.
#[derive(Debug)]
pub(in crate::server) struct Kill(watch::Sender<Option<String>>);

impl Default for Kill {
    fn default() -> Kill {
        Kill(watch::channel(None).0)
    }
}

impl Kill {
    /// Asks the connection to end, for `why` (the first reason is kept).
    pub(in crate::server) fn kill(&self, why: &str) {
        self.0.send_if_modified(|w| {
            if w.is_some() {
                return false;
            }
            *w = Some(why.to_string());
            true
        });
    }

    /// Waits until the connection is asked to end; why.
    pub(in crate::server) async fn killed(&self) -> String {
        let mut rx = self.0.subscribe();
        let why = rx
            .wait_for(Option::is_some)
            .await
            .map(|w| w.clone().unwrap_or_default());
        match why {
            Ok(why) => why,
            // The sender lives as long as `self`.
            Err(_) => std::future::pending().await,
        }
    }

    /// Whether the connection was asked to end.
    pub(in crate::server) fn is_killed(&self) -> bool {
        self.0.borrow().is_some()
    }
}

struct Pending {
    key: Option<IpAddr>,
    kill: Arc<Kill>,
}

/// The failed sign-ons of an address and name.
struct Guard {
    failures: u32,
    last: Instant,
    /// No sign-on of the address and name is checked before this.
    busy_until: Instant,
    /// Held while one sign-on of the address and name is checked (and its
    /// failure answered): the others wait their turn.
    turn: Arc<tokio::sync::Mutex<()>>,
}

/// The rationing of log lines of connections that never signed on.
struct Budget {
    tokens: f64,
    at: Instant,
    suppressed: u64,
}

#[derive(Default)]
struct State {
    next: u64,
    /// Oldest first.
    pending: BTreeMap<u64, Pending>,
    by_address: HashMap<IpAddr, BTreeSet<u64>>,
    signed: usize,
    guards: HashMap<GuardKey, Guard>,
}

impl State {
    fn unlist(&mut self, id: u64) -> Option<Pending> {
        let p = self.pending.remove(&id)?;
        if let Some(k) = p.key {
            if let Some(set) = self.by_address.get_mut(&k) {
                set.remove(&id);
                if set.is_empty() {
                    self.by_address.remove(&k);
                }
            }
        }
        Some(p)
    }

    fn evict(&mut self, id: u64, why: &str) -> bool {
        match self.unlist(id) {
            Some(p) => {
                p.kill.kill(why);
                true
            }
            None => false,
        }
    }

    fn oldest(&self) -> Option<u64> {
        self.pending.keys().next().copied()
    }
}

/// Why a new connection was refused.
pub(in crate::server) const REFUSED_FULL: &str = "too many connections: every one is signed on";

/// Why a pending connection was closed for a newer one.
pub(in crate::server) const EVICTED: &str =
    "closed for a newer connection: too many connections not signed on";

/// The admission of connections (see the module documentation).
pub(in crate::server) struct Gate {
    state: Mutex<State>,
    unsigned_log: Mutex<Budget>,
    /// Players' writers still running.
    writers: watch::Sender<usize>,
}

impl Default for Gate {
    fn default() -> Gate {
        Gate::new()
    }
}

/// The key an address is counted under: an IPv4 address (an IPv4-mapped
/// IPv6 one too), or the /64 of an IPv6 address (one host's share).
pub(in crate::server) fn address_key(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let mut s = v6.segments();
                s[4..].fill(0);
                IpAddr::V6(s.into())
            }
        },
    }
}

/// Whether the secret `given` is `expected`, in a time that depends on the
/// length of `given` only (never on where they differ): guesses learn
/// nothing from the time an answer takes.
pub(in crate::server) fn same_secret(given: &[u8], expected: &[u8]) -> bool {
    if expected.is_empty() {
        // The event file refuses empty tokens.
        return false;
    }
    let mut diff = u8::from(given.len() != expected.len());
    for (i, &g) in given.iter().enumerate() {
        diff |= g ^ expected[i % expected.len()];
    }
    std::hint::black_box(diff) == 0
}

impl Gate {
    /// No connection yet.
    pub(in crate::server) fn new() -> Gate {
        Gate {
            state: Mutex::new(State::default()),
            unsigned_log: Mutex::new(Budget {
                tokens: UNSIGNED_BURST,
                at: Instant::now(),
                suppressed: 0,
            }),
            writers: watch::channel(0).0,
        }
    }

    /// Admits a new connection from `ip` within `caps`, closing the oldest
    /// pending connections as needed (of the same address first); refused
    /// only when every connection is signed on.
    ///
    /// # Errors
    /// [`REFUSED_FULL`].
    pub(in crate::server) fn admit(
        self: &Arc<Self>,
        ip: IpAddr,
        caps: Caps,
    ) -> Result<Ticket, &'static str> {
        let key = address_key(ip);
        let mut st = self.state.lock().map_err(|_| REFUSED_FULL)?;
        while st
            .by_address
            .get(&key)
            .is_some_and(|s| s.len() >= caps.per_address)
        {
            let Some(id) = st.by_address.get(&key).and_then(|s| s.first().copied()) else {
                break;
            };
            st.evict(id, EVICTED);
        }
        while st.pending.len() >= caps.pending || st.pending.len() + st.signed >= caps.total {
            match st.oldest() {
                Some(id) => {
                    st.evict(id, EVICTED);
                }
                None => return Err(REFUSED_FULL),
            }
        }
        let id = st.next;
        st.next += 1;
        let kill = Arc::new(Kill::default());
        st.pending.insert(
            id,
            Pending {
                key: Some(key),
                kill: kill.clone(),
            },
        );
        st.by_address.entry(key).or_default().insert(id);
        Ok(Ticket {
            gate: self.clone(),
            id: Some(id),
            key: Some(key),
            kill,
            signed: false,
        })
    }

    /// Closes the oldest pending connection (to free a descriptor when no
    /// more can be opened).
    pub(in crate::server) fn evict_oldest(&self) -> bool {
        let Ok(mut st) = self.state.lock() else {
            return false;
        };
        match st.oldest() {
            Some(id) => st.evict(id, EVICTED),
            None => false,
        }
    }

    /// The guard of `key`, made if there is none (the oldest forgotten
    /// beyond [`MAX_GUARDED`], and those without a failure for
    /// [`FAILURES_FORGOTTEN`]).
    fn guard(st: &mut State, key: GuardKey, now: Instant) -> &mut Guard {
        if !st.guards.contains_key(&key) {
            st.guards.retain(|_, g| {
                now.duration_since(g.last) < FAILURES_FORGOTTEN || Arc::strong_count(&g.turn) > 1
            });
            if st.guards.len() >= MAX_GUARDED {
                if let Some(oldest) = st
                    .guards
                    .iter()
                    .min_by_key(|(_, g)| g.last)
                    .map(|(k, _)| k.clone())
                {
                    st.guards.remove(&oldest);
                }
            }
        }
        st.guards.entry(key).or_insert_with(|| Guard {
            failures: 0,
            last: now,
            busy_until: now,
            turn: Arc::new(tokio::sync::Mutex::new(())),
        })
    }

    /// Waits for the turn of a sign-on from `key` claiming `bucket` to be
    /// checked: after the sign-ons of the same address and name that came
    /// first, and after the delay of their last failure. The turn lasts
    /// until the returned guard is dropped (after a failure's delay). No
    /// wait without an address (a serial line).
    pub(in crate::server) async fn turn(
        &self,
        key: Option<IpAddr>,
        bucket: Bucket,
    ) -> Option<tokio::sync::OwnedMutexGuard<()>> {
        let key = (key?, bucket);
        let turn = {
            let mut st = self.state.lock().ok()?;
            Gate::guard(&mut st, key.clone(), Instant::now())
                .turn
                .clone()
        };
        let held = turn.lock_owned().await;
        // A failure whose connection was closed during its delay gave the
        // turn back early: its delay still runs.
        loop {
            let until = self
                .state
                .lock()
                .ok()
                .and_then(|st| st.guards.get(&key).map(|g| g.busy_until));
            match until.and_then(|u| u.checked_duration_since(Instant::now())) {
                Some(wait) if !wait.is_zero() => tokio::time::sleep(wait).await,
                _ => break,
            }
        }
        Some(held)
    }

    /// Counts a failed sign-on from `key` claiming `bucket`; the delay
    /// before answering it (the turn is held until then).
    pub(in crate::server) fn failed(&self, key: Option<IpAddr>, bucket: Bucket) -> Duration {
        let Some(key) = key else {
            return BACKOFF_FIRST;
        };
        let now = Instant::now();
        let Ok(mut st) = self.state.lock() else {
            return BACKOFF_LAST;
        };
        let g = Gate::guard(&mut st, (key, bucket), now);
        g.failures = g.failures.saturating_add(1);
        g.last = now;
        let delay = BACKOFF_FIRST
            .saturating_mul(1u32 << (g.failures - 1).min(16))
            .min(BACKOFF_LAST);
        g.busy_until = now + delay;
        delay
    }

    /// Whether a connection that never signed on may write to the logs and
    /// the console now; `Some(n)` if so, `n` being how many were refused
    /// since the last one allowed (to be told first).
    pub(in crate::server) fn may_log_unsigned(&self) -> Option<u64> {
        self.may_log_unsigned_at(Instant::now())
    }

    fn may_log_unsigned_at(&self, now: Instant) -> Option<u64> {
        let mut b = self.unsigned_log.lock().ok()?;
        let now = now.max(b.at);
        let refill = now.duration_since(b.at).as_secs_f64() * UNSIGNED_PER_SECOND;
        b.tokens = (b.tokens + refill).min(UNSIGNED_BURST);
        b.at = now;
        if b.tokens >= 1.0 {
            b.tokens -= 1.0;
            Some(std::mem::take(&mut b.suppressed))
        } else {
            b.suppressed += 1;
            None
        }
    }

    /// Holds the end of the event until it is dropped (a player's writer).
    pub(in crate::server) fn hold(self: &Arc<Self>) -> WriterHold {
        self.writers.send_modify(|n| *n += 1);
        WriterHold(self.clone())
    }

    /// Waits until every player's writer has ended, at most `limit`.
    pub(in crate::server) async fn drained(&self, limit: Duration) {
        let mut rx = self.writers.subscribe();
        let _ = tokio::time::timeout(limit, rx.wait_for(|n| *n == 0)).await;
    }

    /// Connections not signed on, and signed on (admitted over TCP).
    #[cfg(test)]
    fn counts(&self) -> (usize, usize) {
        self.state
            .lock()
            .map(|s| (s.pending.len(), s.signed))
            .unwrap_or_default()
    }
}

/// A player's writer, for [`Gate::drained`].
pub(in crate::server) struct WriterHold(Arc<Gate>);

impl Drop for WriterHold {
    fn drop(&mut self) {
        self.0.writers.send_modify(|n| *n = n.saturating_sub(1));
    }
}

/// A connection's place at the gate, given back when it is dropped.
pub(in crate::server) struct Ticket {
    gate: Arc<Gate>,
    /// None: not counted (a serial line).
    id: Option<u64>,
    key: Option<IpAddr>,
    kill: Arc<Kill>,
    signed: bool,
}

impl Ticket {
    /// A connection that is not counted (a serial line): no limits, no
    /// address.
    pub(in crate::server) fn unlisted(gate: &Arc<Gate>) -> Ticket {
        Ticket {
            gate: gate.clone(),
            id: None,
            key: None,
            kill: Arc::new(Kill::default()),
            signed: false,
        }
    }

    /// The address the connection is counted under.
    pub(in crate::server) fn key(&self) -> Option<IpAddr> {
        self.key
    }

    /// The connection's kill switch.
    pub(in crate::server) fn kill(&self) -> &Arc<Kill> {
        &self.kill
    }

    /// The connection signed on: it no longer counts as pending. False if
    /// it was closed for a newer one meanwhile.
    pub(in crate::server) fn signed_on(&mut self) -> bool {
        let Some(id) = self.id else {
            return !self.kill.is_killed();
        };
        let Ok(mut st) = self.gate.state.lock() else {
            return false;
        };
        if st.unlist(id).is_none() {
            return false;
        }
        st.signed += 1;
        self.signed = true;
        true
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let Some(id) = self.id else { return };
        if let Ok(mut st) = self.gate.state.lock() {
            if self.signed {
                st.signed = st.signed.saturating_sub(1);
            } else {
                st.unlist(id);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn secrets_are_compared_whole() {
        assert!(same_secret(b"a-secret", b"a-secret"));
        for wrong in [&b"a-secreT"[..], b"a-secre", b"a-secrets", b"", b"b-secret"] {
            assert!(!same_secret(wrong, b"a-secret"), "{wrong:?}");
        }
        assert!(!same_secret(b"", b""));
    }

    #[test]
    fn addresses_count_by_host() {
        assert_eq!(address_key(ip("10.0.0.1")), ip("10.0.0.1"));
        assert_eq!(address_key(ip("::ffff:10.0.0.1")), ip("10.0.0.1"));
        assert_eq!(
            address_key(ip("2001:db8:1:2:aaaa::1")),
            ip("2001:db8:1:2::")
        );
    }

    /// At a limit the oldest connection not signed on is closed (of the
    /// same address first); signed-on ones never are.
    #[test]
    fn the_oldest_pending_connection_makes_room() {
        let gate = Arc::new(Gate::new());
        let caps = Caps {
            total: 5,
            pending: 3,
            per_address: 2,
        };
        let a1 = gate.admit(ip("10.0.0.1"), caps).unwrap();
        let a2 = gate.admit(ip("10.0.0.1"), caps).unwrap();
        let b1 = gate.admit(ip("10.0.0.2"), caps).unwrap();
        // A third from 10.0.0.1: its oldest goes, not 10.0.0.2's.
        let a3 = gate.admit(ip("10.0.0.1"), caps).unwrap();
        assert!(a1.kill().is_killed() && !a2.kill().is_killed() && !b1.kill().is_killed());
        assert_eq!(gate.counts(), (3, 0));
        // Pending limit (3): the oldest overall goes.
        let mut c1 = gate.admit(ip("10.0.0.3"), caps).unwrap();
        assert!(a2.kill().is_killed());
        assert!(c1.signed_on());
        let mut b2 = gate.admit(ip("10.0.0.2"), caps).unwrap();
        assert!(b2.signed_on());
        assert_eq!(gate.counts(), (2, 2));
        // A closed connection cannot sign on any more.
        let mut a1 = a1;
        assert!(!a1.signed_on());
        drop((a1, a2));
        // Total limit (5): pending ones make room until none is left.
        let _d = gate.admit(ip("10.0.0.4"), caps).unwrap();
        assert_eq!(gate.counts(), (3, 2));
        let _e = gate.admit(ip("10.0.0.5"), caps).unwrap();
        assert_eq!(gate.counts(), (3, 2));
        let mut all: Vec<Ticket> = Vec::new();
        for i in 0..3 {
            let mut t = gate.admit(ip(&format!("10.0.1.{i}")), caps).unwrap();
            assert!(t.signed_on());
            all.push(t);
        }
        assert_eq!(gate.counts(), (0, 5));
        assert_eq!(gate.admit(ip("10.0.0.6"), caps).err(), Some(REFUSED_FULL));
        drop(all);
        assert_eq!(gate.counts(), (0, 2));
        drop((b1, b2, c1, a3));
        assert_eq!(gate.counts(), (0, 0));
    }

    fn player(name: &str) -> Bucket {
        Bucket::Player(name.into())
    }

    /// The delay doubles per address and name: another player's name from
    /// the same address starts afresh, made-up names share one count.
    #[test]
    fn failed_sign_ons_double_the_delay_per_address_and_name() {
        let gate = Gate::new();
        let a = Some(ip("10.0.0.1"));
        let delays: Vec<Duration> = (0..8).map(|_| gate.failed(a, player("A"))).collect();
        assert_eq!(delays[0], BACKOFF_FIRST);
        assert_eq!(delays[1], BACKOFF_FIRST * 2);
        assert_eq!(delays[7], BACKOFF_LAST);
        assert_eq!(gate.failed(a, player("B")), BACKOFF_FIRST, "B is not A");
        assert_eq!(gate.failed(a, Bucket::Unknown), BACKOFF_FIRST);
        assert_eq!(gate.failed(a, Bucket::Unknown), BACKOFF_FIRST * 2);
        assert_eq!(
            gate.failed(Some(ip("10.0.0.2")), player("A")),
            BACKOFF_FIRST,
            "another address"
        );
        assert_eq!(gate.state.lock().unwrap().guards.len(), 4);
    }

    /// While a guess of A's token waits out its delay, another player of
    /// the same address gets its turn at once, and A's next sign-on gets
    /// its own when the guess's turn ends, not later.
    #[test]
    fn a_guess_holds_only_its_own_name() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        rt.block_on(async {
            let gate = Arc::new(Gate::new());
            let a = Some(ip("10.0.0.1"));
            let guess = gate.turn(a, player("A")).await;
            let delay = gate.failed(a, player("A"));
            assert_eq!(delay, BACKOFF_FIRST);
            // B's turn: at once, while the guess holds A's.
            let b = tokio::time::timeout(Duration::from_secs(60), gate.turn(a, player("B")))
                .await
                .expect("B waits for nobody");
            assert!(b.is_some());
            // A's own sign-on waits for the guess's turn.
            let g = gate.clone();
            let mut right = tokio::spawn(async move { g.turn(a, player("A")).await.is_some() });
            tokio::select! {
                _ = &mut right => panic!("A was checked during the guess's delay"),
                () = tokio::time::sleep(BACKOFF_FIRST / 5) => {}
            }
            drop(guess);
            let got = tokio::time::timeout(Duration::from_secs(60), right)
                .await
                .expect("A's turn came")
                .unwrap();
            assert!(got);
        });
    }

    #[test]
    fn connections_never_signed_on_are_logged_sparingly() {
        let gate = Gate::new();
        let t = gate.unsigned_log.lock().unwrap().at;
        let allowed = (0..1000)
            .filter(|_| gate.may_log_unsigned_at(t).is_some())
            .count();
        assert_eq!(allowed, UNSIGNED_BURST as usize);
        // A second later: a second's worth, and the count of those refused.
        let later = t + Duration::from_secs(1);
        assert_eq!(gate.may_log_unsigned_at(later), Some(1000 - allowed as u64));
        let more = (0..100)
            .filter(|_| gate.may_log_unsigned_at(later).is_some())
            .count();
        assert_eq!(more + 1, UNSIGNED_PER_SECOND as usize);
    }
}
