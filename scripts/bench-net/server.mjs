// A static file server for scripts/bench.sh --server node, where nginx is not installed: plain
// HTTP/1.1 on PORT1 and HTTPS with HTTP/2 on PORT2 (at most 256 streams a connection, as the
// bench's nginx), two worker processes (as nginx's worker_processes 2; WORKERS=N for another
// number). Serves ROOT, and /link-*.bin from LINK_ROOT (the link measurements). PORT1 0: no
// plain HTTP. GET /_stats answers {"sessions": HTTP/2 connections open, "peakSessions": the
// most open at once, before the asking one, "heldStreams": see HOLD_MS} of the worker that
// serves it (the HTTP/2 tests run one worker). HOLD_MS=N (tests only): the HTTP/2 answers to the
// streams that arrive within N ms of the first wait until then, and "heldStreams" counts those
// streams: what a client sent before it heard any answer.
//
//   node scripts/bench-net/server.mjs ROOT LINK_ROOT ADDRESS PORT1 PORT2 CERT KEY
import cluster from "node:cluster";
import fs from "node:fs";
import http from "node:http";
import http2 from "node:http2";
import path from "node:path";

const [root, linkRoot, address, port1, port2, certFile, keyFile] = process.argv.slice(2);
const types = { jpg: "image/jpeg", png: "image/png", webp: "image/webp", gif: "image/gif" };

// The file a request path names, or null (outside the roots, or a bad escape).
function fileFor(requestPath) {
  let name;
  try { name = decodeURIComponent(requestPath.split("?")[0]); } catch { return null; }
  if (name.includes("..") || !name.startsWith("/")) return null;
  return name.startsWith("/link-") ? path.join(linkRoot, name) : path.join(root, name);
}
const typeOf = (file) => types[path.extname(file).slice(1)] ?? "application/octet-stream";

// Image files are kept in memory once read (nginx serves them from the page cache with
// sendfile): opening and reading each through libuv's 4 threads added tens of milliseconds a
// request under load, a server queue the clients' timings would measure instead of the link.
const cache = new Map();
function cached(file) {
  if (cache.has(file)) return cache.get(file);
  let body = null;
  try {
    const stat = fs.statSync(file);
    if (stat.isFile() && stat.size < (1 << 24)) body = fs.readFileSync(file);
  } catch { body = null; }
  if (body) cache.set(file, body);
  return body;
}

if (cluster.isPrimary) {
  for (let i = 0; i < Number(process.env.WORKERS ?? 2); i++) cluster.fork();
  cluster.on("exit", (worker, code) => { console.error(`worker exited (${code}); starting another`); cluster.fork(); });
  process.on("SIGTERM", () => { for (const w of Object.values(cluster.workers)) w.kill(); process.exit(0); });
} else {
  const plain = http.createServer((request, response) => {
    const file = fileFor(request.url);
    const body = file && cached(file);
    if (body) {
      response.writeHead(200, { "content-type": typeOf(file), "content-length": body.length });
      response.end(body);
      return;
    }
    fs.stat(file ?? "", (error, stat) => {
      if (error || !stat.isFile()) { response.writeHead(404, { "content-length": 0 }); response.end(); return; }
      response.writeHead(200, { "content-type": typeOf(file), "content-length": stat.size });
      fs.createReadStream(file).pipe(response);
    });
  });
  plain.keepAliveTimeout = 60_000;
  plain.on("connection", (socket) => socket.setNoDelay(true));
  if (Number(port1) > 0) plain.listen(Number(port1), address);
  const secure = http2.createSecureServer({
    cert: fs.readFileSync(certFile), key: fs.readFileSync(keyFile), settings: { maxConcurrentStreams: 256 },
    // Node refuses new streams (REFUSED_STREAM) past 10 MB of a session's buffers by default;
    // nginx has no such limit, and 256 streams of images exceed it.
    maxSessionMemory: 512,
  });
  let sessions = 0;
  let peakSessions = 0;
  const hold = Number(process.env.HOLD_MS ?? 0);
  let holdUntil = 0;
  let heldStreams = 0;
  secure.on("session", (session) => {
    session.peakBefore = peakSessions;  // what /_stats answers: the asking connection left out
    sessions += 1;
    peakSessions = Math.max(peakSessions, sessions);
    session.on("close", () => { sessions -= 1; });
  });
  secure.on("stream", (stream, headers) => {
    stream.on("error", () => {});  // a stream the client reset: nothing to do
    if (headers[":path"] === "/_stats") {
      stream.respond({ ":status": 200, "content-type": "application/json" });
      stream.end(JSON.stringify({ sessions: sessions - 1, peakSessions: stream.session.peakBefore, heldStreams }));
      return;
    }
    if (hold > 0) {
      const now = Date.now();
      if (holdUntil === 0) holdUntil = now + hold;
      if (now < holdUntil) {
        heldStreams += 1;
        setTimeout(() => answer(stream, headers), holdUntil - now);
        return;
      }
    }
    answer(stream, headers);
  });
  function answer(stream, headers) {
    if (stream.destroyed) return;  // reset by the client while held
    const file = fileFor(headers[":path"]);
    const notFound = () => { if (!stream.headersSent) stream.respond({ ":status": 404 }); stream.end(); };
    if (!file) { notFound(); return; }
    const body = cached(file);
    if (body) {
      stream.respond({ ":status": 200, "content-type": typeOf(file), "content-length": body.length });
      stream.end(body);
      return;
    }
    stream.respondWithFile(file, { "content-type": typeOf(file) }, { onError: notFound });
  }
  // Nagle's algorithm held each stream's first frame back for the client's delayed ACK (tens of
  // milliseconds a request); nginx sets TCP_NODELAY too (tcp_nodelay on).
  secure.on("connection", (socket) => socket.setNoDelay(true));
  secure.on("sessionError", () => {});
  secure.listen(Number(port2), address, () => {
    // PORT2 0: the port the system chose goes to PORT_FILE (the tests' free port).
    if (process.env.PORT_FILE) fs.writeFileSync(process.env.PORT_FILE, String(secure.address().port));
  });
}
