//! Ordered parallel work: items go to worker threads, results come back in
//! the order the items were given, and a panic in a worker is an error for
//! the caller, never a hang.
//!
//! This is the one home of every parallel stream in rookery (the PGN
//! splitter, the EPD verbs over engine instances, analysis). It lives in
//! rookery-io beside the inputs it is mostly used on (`--jobs`), so that
//! rookery-core stays rules only; it needs nothing but std and does no I/O
//! itself.
//!
//! Two ways to hand out the items:
//! - [`with_workers`]: the caller drives. [`Ordered::submit`] hands out an
//!   item, [`Ordered::take_next`] waits for the oldest result not yet taken.
//!   Keeping [`Ordered::in_flight`] under a bound keeps memory bounded
//!   however long the input; [`run`] does exactly that for a plain iterator.
//! - [`with_pulling_workers`]: the workers take their items from a shared
//!   source themselves, one at a time, for items that are costly to make
//!   and best worked on where they were made (the PGN splitter's pieces,
//!   read from the input by the thread that then parses them).
//!
//! And one thread that makes items ahead of a lone taker ([`with_ahead`]:
//! one PGN reading thread's pieces of a file, read while it parses).
//!
//! ```
//! use rookery_io::parallel;
//!
//! // Two workers, each with its own state (here a counter of items done).
//! let mut out = Vec::new();
//! parallel::run(
//!     1..=10u64,
//!     vec![0u32, 0u32],
//!     |done: &mut u32, n: u64| {
//!         *done += 1;
//!         n * n
//!     },
//!     |square| out.push(square),
//! )?;
//! assert_eq!(out, [1, 4, 9, 16, 25, 36, 49, 64, 81, 100]);
//!
//! // A panic in the work is an error, not a hang.
//! let failed = parallel::run(0..100, vec![(), ()], |_, n: i32| {
//!     assert!(n != 42, "a bug");
//!     n
//! }, |_| {});
//! assert!(failed.unwrap_err().to_string().contains("a bug"));
//! # Ok::<(), parallel::WorkerPanicked>(())
//! ```

use std::collections::BTreeMap;
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

/// A worker panicked (a bug in the work), or no worker could be started; the
/// results from the failed item on can never come.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkerPanicked {
    /// The panic message, when it was a string.
    pub message: String,
}

impl fmt::Display for WorkerPanicked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a worker thread failed: {}", self.message)
    }
}

impl std::error::Error for WorkerPanicked {}

/// What a worker sends back: the result of item `seq`, or its panic.
enum Done<O> {
    Ok(usize, O),
    Panicked(String),
}

/// Results that come back in any order, handed on in order, and the
/// first panic, which ends them: the part both kinds of workers share.
struct InOrder<O> {
    done_rx: mpsc::Receiver<Done<O>>,
    /// Results that arrived before their turn.
    arrived: BTreeMap<usize, O>,
    /// Results handed on so far: the number of the next.
    taken: usize,
    failed: Option<WorkerPanicked>,
}

impl<O> InOrder<O> {
    fn new(done_rx: mpsc::Receiver<Done<O>>) -> InOrder<O> {
        InOrder {
            done_rx,
            arrived: BTreeMap::new(),
            taken: 0,
            failed: None,
        }
    }

    /// Waits for the next result in order; `Ok(None)` when every worker
    /// has ended before it came.
    fn next(&mut self) -> Result<Option<O>, WorkerPanicked> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        loop {
            if let Some(out) = self.arrived.remove(&self.taken) {
                self.taken += 1;
                return Ok(Some(out));
            }
            match self.done_rx.recv() {
                Ok(Done::Ok(seq, out)) => {
                    self.arrived.insert(seq, out);
                }
                Ok(Done::Panicked(message)) => return Err(self.fail(message)),
                Err(_) => return Ok(None),
            }
        }
    }

    /// Takes the results that have arrived, without waiting; the message
    /// of a panic among them, if any.
    fn panic_waiting(&mut self) -> Option<String> {
        while let Ok(done) = self.done_rx.try_recv() {
            match done {
                Done::Ok(seq, out) => {
                    self.arrived.insert(seq, out);
                }
                Done::Panicked(message) => return Some(message),
            }
        }
        None
    }

    fn fail(&mut self, message: String) -> WorkerPanicked {
        let e = WorkerPanicked { message };
        self.failed = Some(e.clone());
        e
    }
}

/// The caller's side of a set of workers: submit items, take results in order.
pub struct Ordered<I, O> {
    work_tx: Option<mpsc::Sender<(usize, I)>>,
    results: InOrder<O>,
    submitted: usize,
}

impl<I, O> Ordered<I, O> {
    /// Hands `item` to the next free worker.
    ///
    /// # Errors
    /// [`WorkerPanicked`] if a worker has failed or none is left.
    pub fn submit(&mut self, item: I) -> Result<(), WorkerPanicked> {
        if let Some(e) = &self.results.failed {
            return Err(e.clone());
        }
        let sent = self
            .work_tx
            .as_ref()
            .is_some_and(|tx| tx.send((self.submitted, item)).is_ok());
        if !sent {
            // The last worker may have ended on a panic that has not been
            // taken yet: that is the error to report.
            let message = self
                .results
                .panic_waiting()
                .unwrap_or_else(|| "no worker thread is running".into());
            return Err(self.fail(message));
        }
        self.submitted += 1;
        Ok(())
    }

    /// Items submitted whose results have not been taken yet.
    pub fn in_flight(&self) -> usize {
        self.submitted - self.results.taken
    }

    /// The result of the oldest item not yet taken, waiting for it; `None`
    /// when every submitted item's result has been taken.
    ///
    /// # Errors
    /// [`WorkerPanicked`] if a worker panicked (on this item or another: once
    /// one has, no further result is given) or all workers are gone.
    pub fn take_next(&mut self) -> Option<Result<O, WorkerPanicked>> {
        if self.results.failed.is_none() && self.results.taken == self.submitted {
            return None;
        }
        match self.results.next() {
            Ok(Some(out)) => Some(Ok(out)),
            Ok(None) => Some(Err(self.fail("every worker thread is gone".into()))),
            Err(e) => {
                // Workers waiting for items end.
                self.work_tx = None;
                Some(Err(e))
            }
        }
    }

    fn fail(&mut self, message: String) -> WorkerPanicked {
        // Workers waiting for items end.
        self.work_tx = None;
        self.results.fail(message)
    }
}

/// The message of a panic payload.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic".to_owned()
    }
}

/// Starts one thread per element of `workers` (each owns its state `W`),
/// each running `work` on the items it is given, and runs `body` with the
/// [`Ordered`] handle on the calling thread. When `body` returns, the
/// workers finish the items they hold and end; then `body`'s value is
/// returned. A panic in `work` is caught: the worker ends and
/// [`Ordered::take_next`] reports it. A worker thread the system cannot start
/// only means fewer workers (none at all: the first `submit` fails).
pub fn with_workers<W, I, O, R>(
    workers: Vec<W>,
    work: impl Fn(&mut W, I) -> O + Sync,
    body: impl FnOnce(&mut Ordered<I, O>) -> R,
) -> R
where
    W: Send,
    I: Send,
    O: Send,
{
    let (work_tx, work_rx) = mpsc::channel::<(usize, I)>();
    let work_rx = Arc::new(Mutex::new(work_rx));
    let (done_tx, done_rx) = mpsc::channel::<Done<O>>();
    let work = &work;
    std::thread::scope(|scope| {
        for mut state in workers {
            let rx = Arc::clone(&work_rx);
            let tx = done_tx.clone();
            let spawned = std::thread::Builder::new().spawn_scoped(scope, move || loop {
                // A poisoned lock would mean a panic while receiving: stop.
                let next = match rx.lock() {
                    Ok(guard) => guard.recv(),
                    Err(_) => return,
                };
                let Ok((seq, item)) = next else { return };
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    work(&mut state, item)
                }));
                let done = match result {
                    Ok(out) => Done::Ok(seq, out),
                    Err(payload) => {
                        // The state may be broken: this worker ends here.
                        let _ = tx.send(Done::Panicked(panic_message(payload.as_ref())));
                        return;
                    }
                };
                if tx.send(done).is_err() {
                    return;
                }
            });
            // A thread that cannot start leaves its share to the others.
            drop(spawned);
        }
        // Only the workers hold these now: when all are gone, `submit` and
        // `take_next` see it.
        drop(work_rx);
        drop(done_tx);
        let mut ordered = Ordered {
            work_tx: Some(work_tx),
            results: InOrder::new(done_rx),
            submitted: 0,
        };
        body(&mut ordered)
        // `ordered` drops here, closing the work channel: the workers end.
    })
}

/// Applies `work` to every item of `inputs` on one thread per worker state
/// and calls `emit` with the results in input order. At most `2 *
/// workers.len()` items are in flight at once, however long the input.
///
/// # Errors
/// [`WorkerPanicked`] if `work` panicked; the results before the failed
/// item have been emitted, none after it.
pub fn run<I, O, W>(
    inputs: impl IntoIterator<Item = I>,
    workers: Vec<W>,
    work: impl Fn(&mut W, I) -> O + Sync,
    mut emit: impl FnMut(O),
) -> Result<(), WorkerPanicked>
where
    I: Send,
    O: Send,
    W: Send,
{
    let window = 2 * workers.len().max(1);
    let mut inputs = inputs.into_iter();
    with_workers(workers, work, |q| {
        let mut more = true;
        loop {
            while more && q.in_flight() < window {
                match inputs.next() {
                    Some(item) => q.submit(item)?,
                    None => more = false,
                }
            }
            match q.take_next() {
                Some(out) => emit(out?),
                None => return Ok(()),
            }
        }
    })
}

/// The shared side of [`with_pulling_workers`]: the source, the count of
/// items handed out and taken, and whether to go on.
///
/// The source's lock is held while an item is made, which can be long (a
/// piece read from a file): the counts live outside it, so that taking a
/// result never waits for an item being made, and a worker waiting for room
/// waits on a lock of its own (`gate`), never held long.
struct Pull<S> {
    source: Mutex<S>,
    /// Items handed out so far: the number of the next (changed only under
    /// `source`).
    handed: AtomicUsize,
    /// Results taken, in order (changed only under `gate`).
    taken: AtomicUsize,
    /// The source has no more items.
    ended: AtomicBool,
    /// The caller is done: hand out no more.
    stop: AtomicBool,
    /// Held to wait on `turn`, and to change what such a wait is for.
    gate: Mutex<()>,
    /// Signalled when a result is taken or the work ends.
    turn: Condvar,
    /// Most items handed out and not yet taken.
    limit: usize,
}

impl<S> Pull<S> {
    fn lock(&self) -> Result<MutexGuard<'_, S>, WorkerPanicked> {
        self.source.lock().map_err(|_| WorkerPanicked {
            message: "a worker panicked while taking an item".into(),
        })
    }

    /// No more items are to be handed out.
    fn done(&self) -> bool {
        self.stop.load(Ordering::SeqCst) || self.ended.load(Ordering::SeqCst)
    }

    /// As many items as allowed are handed out and not taken.
    fn full(&self) -> bool {
        let handed = self.handed.load(Ordering::SeqCst);
        let taken = self.taken.load(Ordering::SeqCst);
        handed.saturating_sub(taken) >= self.limit
    }

    /// Waits until there is room for an item or no more are to be handed out.
    fn wait_for_room(&self) {
        let mut gate = self.gate.lock().unwrap_or_else(PoisonError::into_inner);
        while !self.done() && self.full() {
            gate = self.turn.wait(gate).unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Makes `change` (to `taken` or `stop`; `ended` is set just before,
    /// under the source's lock) with the gate held, then wakes the waiting
    /// workers: a worker that has just found no room is either waiting
    /// already, or takes the gate after this and sees the change.
    fn change_and_wake(&self, change: impl FnOnce()) {
        {
            let _gate = self.gate.lock().unwrap_or_else(PoisonError::into_inner);
            change();
        }
        self.turn.notify_all();
    }
}

/// The caller's side of [`with_pulling_workers`]: results in order, and the
/// source to look at or change between them.
pub struct Pulled<'a, S, O> {
    pull: &'a Pull<S>,
    results: InOrder<O>,
}

impl<S, O> Pulled<'_, S, O> {
    /// The result of the oldest item not yet taken, waiting for it; `None`
    /// when the source has ended and every result has been taken.
    ///
    /// # Errors
    /// [`WorkerPanicked`] if a worker panicked (in the work or in taking an
    /// item: once one has, no further result is given) or all are gone.
    pub fn take_next(&mut self) -> Option<Result<O, WorkerPanicked>> {
        match self.results.next() {
            Ok(Some(out)) => {
                let taken = self.results.taken;
                self.pull
                    .change_and_wake(|| self.pull.taken.store(taken, Ordering::SeqCst));
                Some(Ok(out))
            }
            // Every worker has ended: the source is done, or they are gone
            // (which only a bug can do).
            Ok(None) => match self.pull.lock() {
                Ok(_)
                    if self.pull.ended.load(Ordering::SeqCst)
                        && self.pull.handed.load(Ordering::SeqCst) == self.results.taken =>
                {
                    None
                }
                Ok(_) => Some(Err(self.results.fail("every worker thread is gone".into()))),
                Err(e) => Some(Err(self.results.fail(e.message))),
            },
            Err(e) => Some(Err(e)),
        }
    }

    /// Runs `f` on the source, under the lock the workers take items with.
    ///
    /// # Errors
    /// [`WorkerPanicked`] if a worker panicked while taking an item.
    pub fn with_source<T>(&mut self, f: impl FnOnce(&mut S) -> T) -> Result<T, WorkerPanicked> {
        let mut s = self.pull.lock()?;
        Ok(f(&mut s))
    }
}

/// Tells the workers to stop when dropped.
struct StopOnDrop<'a, S>(&'a Pull<S>);

impl<S> Drop for StopOnDrop<'_, S> {
    fn drop(&mut self) {
        self.0
            .change_and_wake(|| self.0.stop.store(true, Ordering::SeqCst));
    }
}

/// Ordered parallel work where the workers take their items themselves:
/// `jobs` threads each take the next item from `source` with `next` (one
/// at a time, under a lock, so items are numbered in the order `next`
/// gives them), run `work` on it with a state of its own (made with
/// `W::default()` on the thread; what one item leaves there for the next,
/// such as a buffer to reuse), and `body` gets the results in that order
/// on the calling thread ([`Pulled::take_next`]). Taking an item on
/// the thread that works on it keeps the item's memory in that thread's
/// cache, and spares the calling thread from making every item.
///
/// At most `limit` items (at least one) are handed out and not yet taken.
/// When `body` returns, the workers finish the items they hold and end;
/// then `body`'s value is returned. A panic in `next` or `work` is caught
/// and reported by [`Pulled::take_next`]. A thread the system cannot start
/// only means fewer workers (none at all: `take_next` says all are gone).
pub fn with_pulling_workers<S, W: Default, I, O, R>(
    jobs: usize,
    limit: usize,
    source: S,
    next: impl Fn(&mut S) -> Option<I> + Sync,
    work: impl Fn(&mut W, I) -> O + Sync,
    body: impl FnOnce(&mut Pulled<'_, S, O>) -> R,
) -> R
where
    S: Send,
    O: Send,
{
    let pull = Pull {
        source: Mutex::new(source),
        handed: AtomicUsize::new(0),
        taken: AtomicUsize::new(0),
        ended: AtomicBool::new(false),
        stop: AtomicBool::new(false),
        gate: Mutex::new(()),
        turn: Condvar::new(),
        limit: limit.max(1),
    };
    let (done_tx, done_rx) = mpsc::channel::<Done<O>>();
    let (pull, next, work) = (&pull, &next, &work);
    std::thread::scope(|scope| {
        for _ in 0..jobs.max(1) {
            let tx = done_tx.clone();
            let spawned = std::thread::Builder::new()
                .spawn_scoped(scope, move || pull_and_work(pull, next, work, &tx));
            // A thread that cannot start leaves its share to the others.
            drop(spawned);
        }
        drop(done_tx);
        // However `body` ends, the workers stop taking items.
        let _stop = StopOnDrop(pull);
        body(&mut Pulled {
            pull,
            results: InOrder::new(done_rx),
        })
    })
}

/// A worker of [`with_pulling_workers`]: takes the next item, works on it,
/// sends the result; until the source ends, the caller stops, or a panic
/// (sent as such).
fn pull_and_work<S, W: Default, I, O>(
    pull: &Pull<S>,
    next: &(impl Fn(&mut S) -> Option<I> + Sync),
    work: &(impl Fn(&mut W, I) -> O + Sync),
    tx: &mpsc::Sender<Done<O>>,
) {
    let mut state = W::default();
    loop {
        let step = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let (seq, item) = loop {
                pull.wait_for_room();
                // A poisoned lock: another worker panicked taking an item,
                // and sends that panic itself.
                let Ok(mut source) = pull.source.lock() else {
                    return None;
                };
                if pull.done() {
                    return None;
                }
                if pull.full() {
                    // Another worker took the room first.
                    continue;
                }
                match next(&mut source) {
                    None => {
                        pull.ended.store(true, Ordering::SeqCst);
                        drop(source);
                        pull.change_and_wake(|| {});
                        return None;
                    }
                    Some(item) => {
                        let seq = pull.handed.load(Ordering::SeqCst);
                        pull.handed.store(seq + 1, Ordering::SeqCst);
                        break (seq, item);
                    }
                }
            };
            Some(Done::Ok(seq, work(&mut state, item)))
        }));
        let done = match step {
            Ok(Some(done)) => done,
            Ok(None) => return,
            Err(payload) => Done::Panicked(panic_message(payload.as_ref())),
        };
        let go_on = matches!(done, Done::Ok(..));
        if tx.send(done).is_err() || !go_on {
            return;
        }
    }
}

/// The taker's side of [`with_ahead`]: the items in the order they were
/// made, and a way to hand things back to the maker.
pub struct Ahead<T, B> {
    items: mpsc::Receiver<Result<T, WorkerPanicked>>,
    back: mpsc::Sender<B>,
}

impl<T, B> Ahead<T, B> {
    /// The next item, waiting for it; `None` once the maker has made its
    /// last.
    ///
    /// # Errors
    /// [`WorkerPanicked`] if making an item panicked (the last item).
    pub fn take_next(&mut self) -> Option<Result<T, WorkerPanicked>> {
        self.items.recv().ok()
    }

    /// Hands `b` back to the maker (a buffer to make a later item in); one
    /// that has ended drops it.
    pub fn give_back(&self, b: B) {
        let _ = self.back.send(b);
    }

    /// What hands things back to the maker from elsewhere (another thread,
    /// a closure that outlives this borrow).
    pub fn giver(&self) -> Giver<B> {
        Giver(self.back.clone())
    }
}

/// Hands things back to the maker of an [`Ahead`] ([`Ahead::giver`]).
#[derive(Clone)]
pub struct Giver<B>(mpsc::Sender<B>);

impl<B> Giver<B> {
    /// As [`Ahead::give_back`].
    pub fn give(&self, b: B) {
        let _ = self.0.send(b);
    }
}

/// Items made ahead of the one who takes them, on a thread of their own
/// (named `rookery-read`): the making of the next items (reading a file)
/// and the work on the one taken run at once. The thread makes items from
/// `source` with `next` until it says there are no more, at most `depth`
/// (at least one) made and not yet taken; before each, `take_back` gets
/// what the taker handed back ([`Ahead::give_back`]). `body` takes the
/// items; once it returns (and drops its [`Ahead`]) the thread ends after
/// the item it is making, and `body`'s value is returned. A panic in
/// `next` or `take_back` is caught and is the last item, an error.
///
/// # Errors
/// The thread could not be started.
pub fn with_ahead<S, T, B, R>(
    depth: usize,
    source: S,
    next: impl FnMut(&mut S) -> Option<T> + Send,
    take_back: impl FnMut(&mut S, B) + Send,
    body: impl FnOnce(Ahead<T, B>) -> R,
) -> std::io::Result<R>
where
    S: Send,
    T: Send,
    B: Send,
{
    let (items_tx, items) = mpsc::sync_channel(depth.max(1));
    let (back, back_rx) = mpsc::channel();
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("rookery-read".into())
            .spawn_scoped(scope, move || {
                make_ahead(source, next, take_back, &items_tx, &back_rx)
            })?;
        Ok(body(Ahead { items, back }))
    })
}

/// The thread of [`with_ahead`].
fn make_ahead<S, T, B>(
    mut source: S,
    mut next: impl FnMut(&mut S) -> Option<T>,
    mut take_back: impl FnMut(&mut S, B),
    items: &mpsc::SyncSender<Result<T, WorkerPanicked>>,
    back: &mpsc::Receiver<B>,
) {
    loop {
        let made = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            for b in back.try_iter() {
                take_back(&mut source, b);
            }
            next(&mut source)
        }));
        let item = match made {
            Ok(None) => return,
            Ok(Some(item)) => Ok(item),
            // Never a silent end: the taker hears of it.
            Err(payload) => Err(WorkerPanicked {
                message: panic_message(payload.as_ref()),
            }),
        };
        let failed = item.is_err();
        // A send fails once the taker is gone: nothing more is wanted.
        if items.send(item).is_err() || failed {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_made_ahead_come_in_order_and_what_is_given_back_reaches_the_maker() {
        // The maker counts up, and adds what it is given back.
        let next = |n: &mut u64| (*n < 100).then(|| std::mem::replace(n, *n + 1));
        let got = with_ahead(
            2,
            0u64,
            next,
            |n, b: u64| *n += b,
            |mut ahead| {
                let mut got = Vec::new();
                while let Some(item) = ahead.take_next() {
                    let item = item.unwrap();
                    if item == 10 {
                        ahead.giver().give(50);
                    }
                    got.push(item);
                }
                got
            },
        )
        .unwrap();
        assert!(got.starts_with(&(0..=10).collect::<Vec<_>>()));
        assert!(got.windows(2).all(|w| w[0] < w[1]), "{got:?}");
        assert!(
            got.len() < 100,
            "the 50 given back skipped some: {}",
            got.len()
        );
        // The taker stops early: the maker ends, nothing hangs.
        let first = with_ahead(1, 0u64, |n| Some(*n), |_, _: ()| {}, |mut a| a.take_next());
        assert_eq!(first.unwrap().unwrap().unwrap(), 0);
        // A panic in the maker is the last item, an error.
        let failed = with_ahead(
            2,
            0u64,
            |n: &mut u64| {
                assert!(*n < 3, "a bug");
                *n += 1;
                Some(*n)
            },
            |_, _: ()| {},
            |mut a| std::iter::from_fn(|| a.take_next()).collect::<Vec<_>>(),
        )
        .unwrap();
        assert_eq!(failed.len(), 4);
        assert!(failed[3].as_ref().unwrap_err().message.contains("a bug"));
    }

    #[test]
    fn keeps_order_with_uneven_work() {
        let mut out = Vec::new();
        run(
            0..200u64,
            vec![(), (), ()],
            |_, i| {
                // Later items often finish first.
                std::thread::sleep(std::time::Duration::from_micros((i * 7919) % 300));
                i * 2
            },
            |o| out.push(o),
        )
        .unwrap();
        assert_eq!(out, (0..200).map(|i| i * 2).collect::<Vec<_>>());
    }

    #[test]
    fn workers_keep_their_state() {
        let mut out = Vec::new();
        run(
            0..10,
            vec![0u32],
            |count, _| {
                *count += 1;
                *count
            },
            |o| out.push(o),
        )
        .unwrap();
        assert_eq!(out, (1..=10).collect::<Vec<_>>());
    }

    #[test]
    fn a_panicking_worker_is_an_error_not_a_hang() {
        for workers in 1..=3 {
            let mut out = Vec::new();
            let r = run(
                0..1000,
                vec![(); workers],
                |_, i: u32| {
                    assert!(i != 17, "item seventeen");
                    i
                },
                |o| out.push(o),
            );
            let e = r.unwrap_err();
            assert!(e.message.contains("item seventeen"), "{e}");
            // Everything before the failed item, in order, nothing after it.
            assert!(out.len() <= 17, "{out:?}");
            assert_eq!(out, (0..out.len() as u32).collect::<Vec<_>>());
        }
    }

    /// The only worker panics on its first item and ends; the items
    /// submitted after that find no worker. The error names the panic,
    /// not the missing worker (the race `a_panicking_worker_is_an_error_not_a_hang`
    /// could lose now and then).
    #[test]
    fn a_submit_after_the_last_worker_panicked_names_the_panic() {
        let e = with_workers(
            vec![()],
            |_, _: u32| -> u32 { panic!("item zero") },
            |q| {
                // Bounded: the worker ends within moments of its panic.
                let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
                loop {
                    if let Err(e) = q.submit(0) {
                        return e;
                    }
                    assert!(
                        std::time::Instant::now() < deadline,
                        "the worker never ended"
                    );
                    std::thread::yield_now();
                }
            },
        );
        assert!(e.message.contains("item zero"), "{e}");
    }

    #[test]
    fn nothing_in_flight_is_none() {
        let r = with_workers(
            vec![()],
            |_, i: u8| i,
            |q| {
                assert!(q.take_next().is_none());
                q.submit(5).unwrap();
                assert_eq!(q.in_flight(), 1);
                let five = q.take_next();
                (five, q.take_next().is_none())
            },
        );
        assert_eq!(r, (Some(Ok(5)), true));
    }

    #[test]
    fn pulled_results_keep_the_order_items_were_taken_in() {
        for jobs in 1..=3 {
            let out = with_pulling_workers(
                jobs,
                4,
                0u64..300,
                |items| items.next(),
                |_: &mut (), i| {
                    std::thread::sleep(std::time::Duration::from_micros((i * 7919) % 200));
                    i * 2
                },
                |q| {
                    let mut out = Vec::new();
                    while let Some(o) = q.take_next() {
                        out.push(o.unwrap());
                    }
                    out
                },
            );
            assert_eq!(out, (0..300).map(|i| i * 2).collect::<Vec<_>>());
        }
    }

    #[test]
    fn a_pulling_workers_state_lasts_from_item_to_item() {
        // Each worker counts its items: only its first item sees a count of
        // one, so no more items than workers do.
        let counts = with_pulling_workers(
            2,
            4,
            0u32..100,
            |items| items.next(),
            |done: &mut u32, _| {
                *done += 1;
                *done
            },
            |q| {
                let mut counts = Vec::new();
                while let Some(c) = q.take_next() {
                    counts.push(c.unwrap());
                }
                counts
            },
        );
        assert_eq!(counts.len(), 100);
        let firsts = counts.iter().filter(|&&c| c == 1).count();
        assert!(
            (1..=2).contains(&firsts),
            "{firsts} first items: {counts:?}"
        );
    }

    #[test]
    fn pulling_workers_hold_at_most_the_limit() {
        // The source counts what was taken; the body checks it against what
        // it has taken itself.
        let most_ahead = with_pulling_workers(
            3,
            5,
            0usize,
            |n| {
                *n += 1;
                (*n <= 200).then_some(*n)
            },
            |_: &mut (), i| i,
            |q| {
                let mut taken = 0;
                let mut most = 0;
                while let Some(i) = q.take_next() {
                    assert_eq!(i.unwrap(), taken + 1);
                    taken += 1;
                    let handed = q.with_source(|n| (*n).min(200)).unwrap();
                    most = most.max(handed - taken);
                    std::thread::sleep(std::time::Duration::from_micros(50));
                }
                most
            },
        );
        assert!(most_ahead <= 5, "{most_ahead} ahead");
    }

    #[test]
    fn a_panic_in_pulling_or_working_is_an_error_not_a_hang() {
        for in_next in [false, true] {
            let (got, err) = with_pulling_workers(
                2,
                4,
                0u32..1000,
                |items| {
                    let i = items.next()?;
                    assert!(!(in_next && i == 17), "taking seventeen");
                    Some(i)
                },
                |_: &mut (), i| {
                    assert!(i != 17, "working on seventeen");
                    i
                },
                |q| {
                    let mut got = Vec::new();
                    loop {
                        match q.take_next() {
                            Some(Ok(i)) => got.push(i),
                            Some(Err(e)) => return (got, e),
                            None => panic!("no error"),
                        }
                    }
                },
            );
            assert!(err.message.contains("seventeen"), "{err}");
            assert_eq!(got, (0..got.len() as u32).collect::<Vec<_>>());
            assert!(got.len() <= 17);
        }
    }

    #[test]
    fn a_body_that_stops_early_ends_the_workers() {
        // An endless source: only the body's return ends the work.
        let first = with_pulling_workers(
            2,
            3,
            0u64..,
            |items| items.next(),
            |_: &mut (), i| i,
            |q| q.take_next().map(Result::unwrap),
        );
        assert_eq!(first, Some(0));
    }

    /// The caller takes a result while a worker is still making the next
    /// item (holding the source): the item here is made only once the
    /// caller has taken the result before it, so a caller that waited for
    /// the source would wait until the item gives up (and the test fails).
    #[test]
    fn taking_a_result_does_not_wait_for_an_item_being_made() {
        let (taken_tx, taken_rx) = mpsc::channel::<()>();
        let taken_rx = Mutex::new(taken_rx);
        let waited_out = AtomicBool::new(false);
        let got = with_pulling_workers(
            2,
            4,
            0u32,
            |n: &mut u32| {
                *n += 1;
                if *n == 2 {
                    let rx = taken_rx.lock().unwrap();
                    if rx.recv_timeout(std::time::Duration::from_secs(10)).is_err() {
                        waited_out.store(true, Ordering::SeqCst);
                    }
                }
                (*n <= 2).then_some(*n)
            },
            |_: &mut (), i| i,
            |q| {
                let mut got = Vec::new();
                while let Some(out) = q.take_next() {
                    let out = out.unwrap();
                    if out == 1 {
                        taken_tx.send(()).unwrap();
                    }
                    got.push(out);
                }
                got
            },
        );
        assert_eq!(got, [1, 2]);
        assert!(
            !waited_out.load(Ordering::SeqCst),
            "taking result 1 waited for item 2 to be made"
        );
    }
}
