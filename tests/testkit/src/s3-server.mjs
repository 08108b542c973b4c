// A local S3 API for tests: s3rver on 127.0.0.1 behind a proxy that adds what s3rver lacks
// and writers need, so tests can check them: ListMultipartUploads, AbortMultipartUpload,
// NoSuchUpload for parts and completions of unknown uploads, `If-None-Match: *` on PutObject
// and CompleteMultipartUpload (412 PreconditionFailed), S3's 5 MiB minimum for every part but
// the last (400 EntityTooSmall). Test switches: refuse writes under key prefixes (403
// AccessDenied), answer If-None-Match with 501 NotImplemented (a store without conditional
// writes) or ignore it (s3rver's own behaviour).
//
// Run as a child process; prints one JSON line: { endpoint }. Control endpoints (no SigV4):
// GET /__stats → { requests, bytes }; GET /__log → [{ method, path, query, ifNoneMatch }];
// POST /__reset zeroes both; POST /__config with JSON { conditional: 'on'|'off'|'ignore',
// refuse: ['bucket/prefix', …], minPartSize } changes the behaviour.
// s3rver checks only the access key of a SigV4 request; the proxy checks the signature too
// (secret S3RVER), so wrong credentials fail as they do on S3 (403 SignatureDoesNotMatch).
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { AwsV4Signer } from 'aws4fetch';
import S3rver from 's3rver';

const latencyMs = Number(process.env.S3_LATENCY_MS ?? 0);
const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'binscope-s3-'));
const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory });
const { port: s3Port } = await server.run();
const store = server.store;

const config = { conditional: 'on', refuse: [], minPartSize: 5 * 1024 * 1024 };
let requests = 0;
let bytes = 0;
let log = [];

function xmlEscape(text) {
  return String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function s3Error(req, res, status, code, message) {
  // Whatever the client was sending is not wanted.
  req.resume();
  res.writeHead(status, { 'content-type': 'application/xml' });
  res.end(
    req.method === 'HEAD'
      ? undefined
      : `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${xmlEscape(message)}</Message></Error>`,
  );
}

function uploadsDir(bucket) {
  return store.getResourcePath(bucket, undefined, 'uploads');
}

function uploadDir(bucket, uploadId) {
  if (!/^[0-9a-f]+$/.test(uploadId)) return undefined;
  return path.join(uploadsDir(bucket), uploadId);
}

function uploadKey(bucket, uploadId) {
  const dir = uploadDir(bucket, uploadId);
  try {
    return dir && fs.readFileSync(path.join(dir, 'key'), 'utf8');
  } catch {
    return undefined;
  }
}

function listUploads(bucket, prefix) {
  let ids = [];
  try {
    ids = fs.readdirSync(uploadsDir(bucket));
  } catch {}
  const out = [];
  for (const id of ids) {
    const key = uploadKey(bucket, id);
    if (key === undefined || !key.startsWith(prefix)) continue;
    const initiated = fs.statSync(path.join(uploadDir(bucket, id), 'key')).mtime;
    out.push({ key, id, initiated });
  }
  return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.id < b.id ? -1 : 1));
}

/** Part sizes by number of an upload in progress. */
function partSizes(bucket, uploadId) {
  const dir = uploadDir(bucket, uploadId);
  const sizes = new Map();
  for (const name of fs.readdirSync(dir)) {
    if (/^\d+$/.test(name)) sizes.set(Number(name), fs.statSync(path.join(dir, name)).size);
  }
  return sizes;
}

function refused(bucket, key) {
  return config.refuse.some((prefix) => `${bucket}/${key}`.startsWith(prefix));
}

/** The response to a request this proxy answers itself, or undefined to pass it to s3rver. */
async function intercept(req, res, bucket, key, query) {
  const ifNoneMatch = req.headers['if-none-match'];
  if (req.method === 'GET' && !key && query.has('uploads')) {
    const uploads = listUploads(bucket, query.get('prefix') ?? '');
    res.writeHead(200, { 'content-type': 'application/xml' });
    res.end(
      `<?xml version="1.0" encoding="UTF-8"?><ListMultipartUploadsResult><Bucket>${xmlEscape(bucket)}</Bucket>` +
        `<IsTruncated>false</IsTruncated>${uploads
          .map(
            (u) =>
              `<Upload><Key>${xmlEscape(u.key)}</Key><UploadId>${u.id}</UploadId><Initiated>${u.initiated.toISOString()}</Initiated></Upload>`,
          )
          .join('')}</ListMultipartUploadsResult>`,
    );
    return true;
  }
  if (!key) return false;
  const uploadId = query.get('uploadId');
  const writing = req.method === 'PUT' || (req.method === 'POST' && query.has('uploads'));
  if (writing && refused(bucket, key)) {
    s3Error(req, res, 403, 'AccessDenied', 'Access Denied');
    return true;
  }
  if (uploadId !== null && uploadKey(bucket, uploadId) !== key) {
    s3Error(req, res, 404, 'NoSuchUpload', 'The specified upload does not exist.');
    return true;
  }
  if (req.method === 'DELETE' && uploadId !== null) {
    // The upload ends with its `key` file (unknown from then on: NoSuchUpload, not listed) and
    // its parts go, but the folder stays: a part s3rver is still writing (the client hung up,
    // or was killed, just before this abort) would open its file in a removed folder, an
    // unhandled ENOENT that ends s3rver. S3 itself lets such a part finish or fail.
    const dir = uploadDir(bucket, uploadId);
    fs.rmSync(path.join(dir, 'key'), { force: true });
    for (const name of fs.readdirSync(dir)) fs.rmSync(path.join(dir, name), { recursive: true, force: true });
    req.resume();
    res.writeHead(204);
    res.end();
    return true;
  }
  const completing = req.method === 'POST' && uploadId !== null;
  if (completing) {
    const sizes = partSizes(bucket, uploadId);
    const last = Math.max(0, ...sizes.keys());
    for (const [number, size] of sizes) {
      if (number !== last && size < config.minPartSize) {
        s3Error(req, res, 400, 'EntityTooSmall', `part ${number} is ${size} bytes, below the minimum`);
        return true;
      }
    }
  }
  const creating = (req.method === 'PUT' && uploadId === null) || completing;
  if (creating && ifNoneMatch !== undefined && config.conditional !== 'ignore') {
    if (config.conditional === 'off') {
      s3Error(
        req,
        res,
        501,
        'NotImplemented',
        'A header you provided implies functionality that is not implemented',
      );
      return true;
    }
    if (ifNoneMatch === '*' && (await store.existsObject(bucket, key))) {
      s3Error(
        req,
        res,
        412,
        'PreconditionFailed',
        'At least one of the pre-conditions you specified did not hold',
      );
      return true;
    }
  }
  return false;
}

function forward(req, res) {
  const upstream = http.request(
    { host: '127.0.0.1', port: s3Port, method: req.method, path: req.url, headers: req.headers },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.on('data', (chunk) => {
        bytes += chunk.length;
      });
      answer.on('error', () => res.destroy());
      res.on('close', () => answer.destroy());
      answer.pipe(res);
    },
  );
  // A client that hangs up mid-body (a reader that got what it needed, a killed writer) is routine.
  upstream.on('error', () => res.destroy());
  res.on('error', () => upstream.destroy());
  req.on('error', () => upstream.destroy());
  req.pipe(upstream);
}

function control(req, res) {
  const send = (value) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(value));
  };
  if (req.url === '/__stats') return send({ requests, bytes });
  if (req.url === '/__log') return send(log);
  if (req.url === '/__reset') {
    requests = 0;
    bytes = 0;
    log = [];
    Object.assign(config, { conditional: 'on', refuse: [], minPartSize: 5 * 1024 * 1024 });
    return send({});
  }
  if (req.url === '/__config') {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      Object.assign(config, JSON.parse(body || '{}'));
      send(config);
    });
    return;
  }
  res.writeHead(404);
  res.end();
}

/** Whether a SigV4 header signature is right for the secret S3RVER (other keys: s3rver decides). */
async function signatureHolds(req) {
  const auth = req.headers.authorization;
  if (!auth) return true;
  const m =
    /Credential=([^/]+)\/\d{8}\/([^/]+)\/s3\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]+)/.exec(
      auth,
    );
  if (!m) return false;
  if (m[1] !== 'S3RVER') return true;
  const headers = {};
  for (const name of m[3].split(';')) if (name !== 'host') headers[name] = req.headers[name] ?? '';
  const signer = new AwsV4Signer({
    method: req.method,
    url: `http://${req.headers.host}${req.url}`,
    headers,
    accessKeyId: m[1],
    secretAccessKey: 'S3RVER',
    service: 's3',
    region: m[2],
    datetime: req.headers['x-amz-date'],
    allHeaders: true,
  });
  const signed = await signer.sign();
  return /Signature=([0-9a-f]+)/.exec(signed.headers.get('Authorization'))?.[1] === m[4];
}

const proxy = http.createServer((req, res) => {
  if (req.url.startsWith('/__')) return control(req, res);
  requests++;
  const url = new URL(req.url, 'http://local');
  const [bucket = '', ...rest] = url.pathname.slice(1).split('/');
  const key = rest.map(decodeURIComponent).join('/');
  log.push({
    method: req.method,
    path: decodeURIComponent(url.pathname),
    query: [...url.searchParams.keys()].filter((k) => !k.startsWith('X-Amz-')),
    ifNoneMatch: req.headers['if-none-match'] ?? null,
  });
  setTimeout(() => {
    signatureHolds(req)
      .then((holds) => {
        if (holds) return intercept(req, res, decodeURIComponent(bucket), key, url.searchParams);
        s3Error(
          req,
          res,
          403,
          'SignatureDoesNotMatch',
          'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
        );
        return true;
      })
      .then(
        (handled) => {
          if (!handled) forward(req, res);
        },
        (error) => {
          s3Error(req, res, 500, 'InternalError', String(error?.message ?? error));
        },
      );
  }, latencyMs);
});
// Longer than any pause in a test (a CPU-bound property run blocks the client's event loop,
// so it cannot notice an idle connection closing and would reuse it).
proxy.keepAliveTimeout = 120_000;
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
// The parent's end closes our stdin: never outlive the test that started us.
process.stdin.on('end', stop);
process.stdin.resume();
