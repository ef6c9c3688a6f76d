//! The order-keeping parallel map of every reproduction (Mache et al., 002, 003): independent
//! points on a few scoped threads, results in item order (they never depend on the thread
//! count: every point is computed alone and deterministically from its own seed).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::error::Error;

/// `f` over `items` on up to `threads` scoped threads, each taking the next unclaimed item
/// (uneven items balance themselves); the results in item order, or the first error in item
/// order.
pub fn par_map<T, R, F>(items: &[T], threads: usize, f: F) -> Result<Vec<R>, Error>
where
    T: Sync,
    R: Send,
    F: Fn(&T) -> Result<R, Error> + Sync,
{
    let threads = threads.max(1).min(items.len().max(1));
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<Result<R, Error>>>> =
        items.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = items.get(i) else {
                    break;
                };
                let r = f(item);
                if let Ok(mut slot) = slots[i].lock() {
                    *slot = Some(r);
                }
            });
        }
    });
    slots
        .into_iter()
        .map(|slot| {
            slot.into_inner().ok().flatten().unwrap_or_else(|| {
                Err(Error::Config(crate::modes::flat::spec::ConfigError {
                    key: String::new(),
                    message: "a worker thread panicked".into(),
                }))
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_order_and_reports_the_first_error() {
        let items: Vec<u32> = (0..10).collect();
        for threads in [1, 2, 3, 16] {
            let v = par_map(&items, threads, |&x| Ok(x * x)).unwrap();
            assert_eq!(v, items.iter().map(|x| x * x).collect::<Vec<_>>());
        }
        let e = par_map(&items, 2, |&x| {
            if x >= 3 {
                Err(Error::MissingTrace(format!("{x}")))
            } else {
                Ok(x)
            }
        })
        .unwrap_err();
        assert_eq!(e, Error::MissingTrace("3".into()));
        assert!(par_map(&[] as &[u32], 4, |&x| Ok(x)).unwrap().is_empty());
    }
}
