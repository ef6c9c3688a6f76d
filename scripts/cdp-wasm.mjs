// The WebAssembly memories of the app's page and workers, read over the Chrome DevTools
// Protocol: shared by bench-memory.mjs (the tab's memory on a big trace) and bench-anysize.mjs
// (the comparison and replay windows of a big run). A wasm memory never shrinks, so its size is
// its peak.

// CDP of a worker target through the browser session (non-flattened sessions).
export function workerChannel(bs) {
  let seq = 0;
  const pending = new Map();
  bs.on('Target.receivedMessageFromTarget', (ev) => {
    const m = JSON.parse(ev.message);
    const k = `${ev.sessionId}:${m.id}`;
    if (m.id && pending.has(k)) {
      pending.get(k)(m);
      pending.delete(k);
    }
  });
  return (sessionId, method, params = {}) => new Promise((res, rej) => {
    seq += 1;
    pending.set(`${sessionId}:${seq}`, (m) => (m.error ? rej(new Error(m.error.message)) : res(m.result)));
    bs.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id: seq, method, params }) })
      .catch(rej);
  });
}

// Attaches to every worker of the browser session `bs`: their session ids, and `toWorker`
// (`toWorker(sessionId, method, params)` speaks CDP to one of them).
export async function attachWorkers(bs) {
  const toWorker = workerChannel(bs);
  const targets = (await bs.send('Target.getTargets')).targetInfos.filter((t) => t.type === 'worker');
  const workers = [];
  for (const t of targets) {
    const { sessionId } = await bs.send('Target.attachToTarget', { targetId: t.targetId, flatten: false });
    workers.push(sessionId);
  }
  return { toWorker, workers };
}

// Sizes of the WebAssembly memories of a context, bytes (`send` speaks CDP to it).
export async function wasmMemories(send) {
  const proto = await send('Runtime.evaluate', { expression: 'WebAssembly.Memory.prototype' });
  const q = await send('Runtime.queryObjects', { prototypeObjectId: proto.result.objectId });
  const r = await send('Runtime.callFunctionOn', {
    objectId: q.objects.objectId,
    functionDeclaration: 'function () { return this.map((m) => m.buffer.byteLength); }',
    returnByValue: true,
  });
  return r.result.value;
}
