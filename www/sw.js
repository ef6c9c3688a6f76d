// schedlab's service worker: the app shell and the shipped exercises, cached so that the page
// reloads and runs without a network (docs/offline.md). scripts/sw-build.sh, a Trunk post-build
// hook, writes it into dist/ with the build's version (a hash of every file it caches) and
// the list of those files in place of the two markers below; a new release is a new version,
// whose cache replaces the old one when the new worker activates.
'use strict';

const VERSION = '__SCHEDLAB_VERSION__';
const FILES = __SCHEDLAB_FILES__;
const PREFIX = 'schedlab-';
const CACHE = `${PREFIX}${VERSION}`;
// A page load waits this long for the network before the cached page answers.
const NAVIGATION_TIMEOUT_MS = 4000;

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    // `reload`: past the HTTP cache, so a release never caches an older file.
    await cache.addAll(FILES.map((f) => new Request(f, { cache: 'reload' })));
    await self.skipWaiting();
  })());
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const key of await caches.keys()) {
      if (key.startsWith(PREFIX) && key !== CACHE) await caches.delete(key);
    }
    await self.clients.claim();
  })());
});

// The page itself: the network first (a new release shows at once), the cached page when the
// network fails or is slower than NAVIGATION_TIMEOUT_MS.
async function navigation(request) {
  const cache = await caches.open(CACHE);
  const cached = () => cache.match('index.html');
  try {
    const response = await Promise.race([
      fetch(request),
      new Promise((_, reject) => setTimeout(() => reject(new Error('slow network')), NAVIGATION_TIMEOUT_MS)),
    ]);
    if (response.ok) return response;
    return (await cached()) ?? response;
  } catch (e) {
    const page = await cached();
    if (page) return page;
    throw e;
  }
}

// Everything else: the cache first (file names carry their content's hash), then the network.
async function asset(request) {
  const cache = await caches.open(CACHE);
  const hit = await cache.match(request, { ignoreSearch: true });
  return hit ?? fetch(request);
}

self.addEventListener('fetch', (event) => {
  const { request } = event;
  if (request.method !== 'GET' || new URL(request.url).origin !== self.location.origin) return;
  event.respondWith(request.mode === 'navigate' ? navigation(request) : asset(request));
});
