// A local S3 API for tests and the bench: s3rver on 127.0.0.1 behind a proxy that counts
// requests and response bytes and can add latency per request. Run as a child process so
// a test's synchronous CLI runs cannot stall it. Prints one JSON line: { endpoint }.
// GET /__stats on the endpoint answers { requests, bytes }; POST /__reset zeroes them.
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import S3rver from 's3rver';

const latencyMs = Number(process.env.S3_LATENCY_MS ?? 0);
// A link of this many bytes per second, shared by all connections (0: as fast as loopback).
const bandwidth = Number(process.env.S3_BANDWIDTH ?? 0);
let linkFreeAt = 0;

/** Sends a response body no faster than the shared link allows. */
function throttle(answer, res) {
  // Writes in order; 'end' can come while the last chunk still waits for the link.
  let sent = Promise.resolve();
  answer.on('data', (chunk) => {
    const now = performance.now();
    linkFreeAt = Math.max(now, linkFreeAt) + (chunk.length / bandwidth) * 1000;
    const wait = linkFreeAt - now;
    // Below timer resolution the chunk goes now; the debt stays on linkFreeAt and is slept
    // off once it adds up, so the average rate holds.
    if (wait < 4) {
      res.write(chunk);
      return;
    }
    answer.pause();
    sent = sent
      .then(() => new Promise((resolve) => setTimeout(resolve, wait)))
      .then(() => {
        res.write(chunk);
        answer.resume();
      });
  });
  answer.on('end', () => sent.then(() => res.end()));
}
const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'binscope-s3rver-'));
const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory });
const { port: s3Port } = await server.run();

let requests = 0;
let bytes = 0;
const proxy = http.createServer((req, res) => {
  if (req.url === '/__stats') {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ requests, bytes }));
    return;
  }
  if (req.url === '/__reset') {
    requests = 0;
    bytes = 0;
    res.end('{}');
    return;
  }
  requests++;
  setTimeout(() => {
    const upstream = http.request(
      { host: '127.0.0.1', port: s3Port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.on('data', (chunk) => {
          bytes += chunk.length;
        });
        answer.on('error', () => res.destroy());
        res.on('close', () => answer.destroy());
        if (bandwidth > 0) throttle(answer, res);
        else answer.pipe(res);
      },
    );
    // A client that hangs up mid-body (a reader that got what it needed) is routine.
    upstream.on('error', () => res.destroy());
    res.on('error', () => upstream.destroy());
    req.on('error', () => upstream.destroy());
    req.pipe(upstream);
  }, latencyMs);
});
proxy.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ endpoint: `http://127.0.0.1:${proxy.address().port}` })}\n`);
});

async function stop() {
  proxy.close();
  await server.close().catch(() => {});
  fs.rmSync(directory, { recursive: true, force: true });
  process.exit(0);
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
// The parent's end closes our stdin: never outlive the test or bench that started us.
process.stdin.on('end', stop);
process.stdin.resume();
