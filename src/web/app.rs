//! The app shell (the `app` binary): one page of tabs, one per mode ([`super::modes`]). It
//! installs the page-wide panic report, fills every registry picker (`data-registry`), starts
//! each tab — the flat machine ([`super::page`]), the 2D mesh ([`super::mesh_page`]), the grid
//! ([`super::grid_page`]), moldable jobs ([`super::moldable_page`]) and the exercises
//! ([`super::exercise_page`]) — and opens the tab a share link asks for. A tab that cannot
//! start (its markup incomplete) says so in its own panel; the others still start.

/// Entry point of the `app` binary.
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        let message = format!("Internal error — please reload the page and report this: {info}");
        super::page::show_error(&message);
        super::page::show_fatal(&message);
    }));
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    super::kit::picker::fill_registry_pickers(&doc);
    super::modes::wire(&doc);
    super::page::start(&doc);
    super::grid_page::start(&doc);
    super::mesh_page::start();
    super::moldable_page::start(&doc);
    super::exercise_page::start(&doc);
}
