// The upload half of the simulated link, for the bench's write rows: a proxy in front of the
// test S3 server (which adds the latency per request and throttles response bodies) that sends
// request bodies upstream no faster than S3_BANDWIDTH bytes per second, shared by all
// connections, and logs each request. Run as a child process so the bench's own work cannot
// stall it. Args: the upstream endpoint. Prints one JSON line: { endpoint }.
// GET /__log answers { sent, log: [{ method, path, query, start, end }] } (request-body bytes
// and requests since the last POST /__reset; start and end in ms, end when the answer is sent).
import * as http from 'node:http';

const upstreamUrl = new URL(process.argv[2]);
const bandwidth = Number(process.env.S3_BANDWIDTH ?? 0);
let linkFreeAt = 0;
let sent = 0;
let log = [];

/** Forwards a request body no faster than the shared link allows, keeping the order of chunks. */
function throttle(req, upstream) {
  let queue = Promise.resolve();
  req.on('data', (chunk) => {
    sent += chunk.length;
    const now = performance.now();
    linkFreeAt = Math.max(now, linkFreeAt) + (chunk.length / bandwidth) * 1000;
    const wait = linkFreeAt - now;
    // Below timer resolution the chunk goes now; the debt stays on linkFreeAt and is slept off
    // once it adds up, so the average rate holds.
    if (wait < 4) {
      if (!upstream.write(chunk)) {
        req.pause();
        upstream.once('drain', () => req.resume());
      }
      return;
    }
    req.pause();
    queue = queue
      .then(() => new Promise((resolve) => setTimeout(resolve, wait)))
      .then(() => {
        if (upstream.write(chunk)) req.resume();
        else upstream.once('drain', () => req.resume());
      });
  });
  req.on('end', () => queue.then(() => upstream.end()));
}

const proxy = http.createServer((req, res) => {
  if (req.url === '/__log' || req.url === '/__reset') {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(req.url === '/__log' ? { sent, log } : {}));
    if (req.url === '/__reset') {
      sent = 0;
      log = [];
    }
    return;
  }
  const url = new URL(req.url, 'http://local');
  const entry = {
    method: req.method,
    path: decodeURIComponent(url.pathname),
    query: [...url.searchParams.keys()].filter((k) => !k.startsWith('X-Amz-')),
    start: performance.now(),
    end: 0,
  };
  log.push(entry);
  res.on('finish', () => {
    entry.end = performance.now();
  });
  const upstream = http.request(
    {
      host: upstreamUrl.hostname,
      port: upstreamUrl.port,
      method: req.method,
      path: req.url,
      headers: req.headers,
    },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.on('error', () => res.destroy());
      res.on('close', () => answer.destroy());
      answer.pipe(res);
    },
  );
  upstream.on('error', () => res.destroy());
  res.on('error', () => upstream.destroy());
  req.on('error', () => upstream.destroy());
  if (bandwidth > 0) throttle(req, upstream);
  else {
    req.on('data', (chunk) => {
      sent += chunk.length;
    });
    req.pipe(upstream);
  }
});
proxy.keepAliveTimeout = 120_000;
proxy.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ endpoint: `http://127.0.0.1:${proxy.address().port}` })}\n`);
});

function stop() {
  proxy.close();
  process.exit(0);
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
// The parent's end closes our stdin: never outlive the bench that started us.
process.stdin.on('end', stop);
process.stdin.resume();
