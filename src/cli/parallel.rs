//! Running independent reproduction points on a few threads, keeping their order (results
//! never depend on the thread count: every point is computed alone and deterministically).

use crate::error::Error;

/// `f` over `items` on up to `threads` scoped threads (item i on thread i mod threads); the
/// results in item order, or the first error in item order.
pub fn par_map<T, R, F>(items: &[T], threads: usize, f: F) -> Result<Vec<R>, Error>
where
    T: Sync,
    R: Send,
    F: Fn(&T) -> Result<R, Error> + Sync,
{
    let threads = threads.max(1).min(items.len().max(1));
    let f = &f;
    let mut slots: Vec<Option<Result<R, Error>>> = (0..items.len()).map(|_| None).collect();
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                s.spawn(move || {
                    items
                        .iter()
                        .enumerate()
                        .skip(t)
                        .step_by(threads)
                        .map(|(i, item)| (i, f(item)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for h in handles {
            match h.join() {
                Ok(done) => {
                    for (i, r) in done {
                        slots[i] = Some(r);
                    }
                }
                Err(_) => {
                    return;
                }
            }
        }
    });
    slots
        .into_iter()
        .map(|r| {
            r.unwrap_or_else(|| {
                Err(Error::Config(crate::config::ConfigError {
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
