//! Running work over a stream of items on several workers (engine
//! instances), emitting results in input order with bounded memory.

use std::collections::BTreeMap;
use std::sync::mpsc;
use std::sync::Mutex;

/// Applies `work` to every item of `inputs` using the given workers (one
/// thread each), and calls `emit` with the results in input order. At most
/// about `2 * workers` items are held at once, however long the input.
pub fn run_parallel<I, O, W>(
    inputs: impl Iterator<Item = I> + Send,
    workers: Vec<W>,
    work: impl Fn(&mut W, I) -> O + Sync,
    mut emit: impl FnMut(O),
) where
    I: Send,
    O: Send,
    W: Send,
{
    let n = workers.len().max(1);
    let source = Mutex::new(inputs.enumerate());
    let (tx, rx) = mpsc::sync_channel::<(usize, O)>(n);
    // Workers may run at most `window` items ahead of the oldest unwritten one.
    let window = 2 * n;
    let written = Mutex::new(0usize);
    let turn = std::sync::Condvar::new();
    std::thread::scope(|s| {
        for mut w in workers {
            let tx = tx.clone();
            let (source, work, written, turn) = (&source, &work, &written, &turn);
            s.spawn(move || loop {
                let next = match source.lock() {
                    Ok(mut it) => it.next(),
                    Err(_) => None,
                };
                let Some((i, item)) = next else { break };
                // Wait while too far ahead of the writer (keeps memory bounded).
                if let Ok(mut done) = written.lock() {
                    while i >= *done + window {
                        done = match turn.wait(done) {
                            Ok(d) => d,
                            Err(_) => break,
                        };
                    }
                }
                let out = work(&mut w, item);
                if tx.send((i, out)).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        let mut pending = BTreeMap::new();
        let mut next = 0usize;
        for (i, out) in rx {
            pending.insert(i, out);
            while let Some(out) = pending.remove(&next) {
                emit(out);
                next += 1;
                if let Ok(mut done) = written.lock() {
                    *done = next;
                }
                turn.notify_all();
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_order_with_uneven_work() {
        let mut out = Vec::new();
        run_parallel(
            0..200u64,
            vec![(), (), ()],
            |_, i| {
                std::thread::sleep(std::time::Duration::from_micros((i * 7919) % 300));
                i * 2
            },
            |o| out.push(o),
        );
        assert_eq!(out, (0..200).map(|i| i * 2).collect::<Vec<_>>());
    }

    #[test]
    fn workers_keep_their_state() {
        let mut out = Vec::new();
        run_parallel(
            0..10,
            vec![0u32],
            |count, _| {
                *count += 1;
                *count
            },
            |o| out.push(o),
        );
        assert_eq!(out, (1..=10).collect::<Vec<_>>());
    }
}
