//! Ordered parallel work: items go to worker threads, results come back in
//! the order the items were given, and a panic in a worker is an error for
//! the caller, never a hang.
//!
//! This is the one helper behind every parallel stream in rookery (the PGN
//! splitter, the EPD verbs over engine instances). It lives here because it
//! needs nothing but std and every crate can reach it; it does no I/O.
//!
//! The caller drives: [`Ordered::submit`] hands out an item,
//! [`Ordered::take_next`] waits for the oldest result not yet taken. Keeping
//! [`Ordered::in_flight`] under a bound keeps memory bounded however long the
//! input; [`run`] does exactly that for a plain iterator.
//!
//! ```
//! use rookery_core::parallel;
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
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

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

/// The caller's side of a set of workers: submit items, take results in order.
pub struct Ordered<I, O> {
    work_tx: Option<mpsc::Sender<(usize, I)>>,
    done_rx: mpsc::Receiver<Done<O>>,
    /// Results that arrived before their turn.
    arrived: BTreeMap<usize, O>,
    submitted: usize,
    taken: usize,
    failed: Option<WorkerPanicked>,
}

impl<I, O> Ordered<I, O> {
    /// Hands `item` to the next free worker.
    ///
    /// # Errors
    /// [`WorkerPanicked`] if a worker has failed or none is left.
    pub fn submit(&mut self, item: I) -> Result<(), WorkerPanicked> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        let sent = self
            .work_tx
            .as_ref()
            .is_some_and(|tx| tx.send((self.submitted, item)).is_ok());
        if !sent {
            return Err(self.fail("no worker thread is running".into()));
        }
        self.submitted += 1;
        Ok(())
    }

    /// Items submitted whose results have not been taken yet.
    pub fn in_flight(&self) -> usize {
        self.submitted - self.taken
    }

    /// The result of the oldest item not yet taken, waiting for it; `None`
    /// when every submitted item's result has been taken.
    ///
    /// # Errors
    /// [`WorkerPanicked`] if a worker panicked (on this item or another: once
    /// one has, no further result is given) or all workers are gone.
    pub fn take_next(&mut self) -> Option<Result<O, WorkerPanicked>> {
        if let Some(e) = &self.failed {
            return Some(Err(e.clone()));
        }
        if self.taken == self.submitted {
            return None;
        }
        while !self.arrived.contains_key(&self.taken) {
            match self.done_rx.recv() {
                Ok(Done::Ok(seq, out)) => {
                    self.arrived.insert(seq, out);
                }
                Ok(Done::Panicked(message)) => return Some(Err(self.fail(message))),
                Err(_) => return Some(Err(self.fail("every worker thread is gone".into()))),
            }
        }
        let out = self.arrived.remove(&self.taken)?;
        self.taken += 1;
        Some(Ok(out))
    }

    fn fail(&mut self, message: String) -> WorkerPanicked {
        let e = WorkerPanicked { message };
        self.failed = Some(e.clone());
        // Workers waiting for items end.
        self.work_tx = None;
        e
    }
}

/// The message of a panic payload (what [`std::panic::catch_unwind`]
/// gives): its text when it is a string, else "panic".
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
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
            done_rx,
            arrived: BTreeMap::new(),
            submitted: 0,
            taken: 0,
            failed: None,
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
