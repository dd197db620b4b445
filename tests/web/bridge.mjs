// A test utility that STANDS IN UNTIL `qirkatd --http HOST:PORT` EXISTS.
//
// It does what that flag will do (../shared/PROTOCOL.md, "WebSocket
// transport"): serves the web client (web/) over HTTP at / and bridges the
// WebSocket at /ws to a real qirkatd's TCP JSON lines, one text frame <-> one
// line, so the page and its browser tests can be developed against the real
// server before the server speaks WebSocket. run.mjs prefers `qirkatd --http`
// as soon as the binary accepts the flag; then this file is no longer used
// by the tests and can be deleted.
//
// Not a production server: no TLS, no limits of its own (qirkatd enforces
// its line limit, rate limits and errors on the TCP side, which is the point).
//
//   node bridge.mjs --listen 127.0.0.1:7421 --server 127.0.0.1:7420 [--web DIR]
//
// or from a test: `const b = await startBridge({ tcpPort, webRoot }); b.port; await b.close();`

import http from 'node:http';
import net from 'node:net';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocketServer } from 'ws';

const here = path.dirname(fileURLToPath(import.meta.url));

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8', // ES modules need a JavaScript MIME type
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
};

function serveStatic(webRoot, req, res) {
  const url = new URL(req.url, 'http://x');
  let rel = decodeURIComponent(url.pathname);
  if (rel === '/') rel = '/index.html';
  const file = path.resolve(webRoot, '.' + rel);
  // Never serve outside web/ ("/../../etc/passwd").
  if (!file.startsWith(path.resolve(webRoot) + path.sep)) {
    res.writeHead(403).end('forbidden');
    return;
  }
  fs.readFile(file, (err, data) => {
    if (err) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, {
      'content-type': TYPES[path.extname(file)] || 'application/octet-stream',
      'cache-control': 'no-cache',
    });
    res.end(data);
  });
}

/**
 * Start the bridge. opts: tcpHost ('127.0.0.1'), tcpPort (qirkatd's TCP port,
 * required), host ('127.0.0.1'), port (0 = ephemeral), webRoot (../../web).
 * Resolves to {port, close()}.
 */
export function startBridge(opts) {
  const tcpHost = opts.tcpHost || '127.0.0.1';
  const webRoot = opts.webRoot || path.resolve(here, '../../web');
  const server = http.createServer((req, res) => serveStatic(webRoot, req, res));
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1 << 20 });
  const sockets = new Set();

  server.on('upgrade', (req, sock, head) => {
    if (new URL(req.url, 'http://x').pathname !== '/ws') {
      sock.destroy();
      return;
    }
    wss.handleUpgrade(req, sock, head, (ws) => bridge(ws));
  });

  function bridge(ws) {
    const tcp = net.connect(opts.tcpPort, tcpHost);
    sockets.add(tcp);
    let buf = '';
    const queue = []; // frames that arrive before the TCP connection is up
    let up = false;
    tcp.setEncoding('utf8');
    tcp.on('connect', () => {
      up = true;
      for (const q of queue) tcp.write(q);
      queue.length = 0;
    });
    tcp.on('data', (chunk) => {
      buf += chunk;
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i).replace(/\r$/, '');
        buf = buf.slice(i + 1);
        // Empty lines are TCP keepalives; WebSocket has its own ping.
        if (line !== '' && ws.readyState === ws.OPEN) ws.send(line);
      }
    });
    const closeBoth = () => {
      sockets.delete(tcp);
      tcp.destroy();
      if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close();
    };
    tcp.on('close', closeBoth);
    tcp.on('error', closeBoth);
    ws.on('close', closeBoth);
    ws.on('error', closeBoth);
    ws.on('message', (data, isBinary) => {
      if (isBinary) {
        ws.close(1003, 'text frames only'); // the protocol is JSON text
        return;
      }
      // A raw newline can only be whitespace between JSON tokens (inside a
      // string it must be escaped), so turning it into a space keeps one
      // frame one line.
      const line = data.toString('utf8').replace(/[\r\n]/g, ' ') + '\n';
      if (up) tcp.write(line);
      else queue.push(line);
    });
  }

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port || 0, opts.host || '127.0.0.1', () => {
      resolve({
        port: server.address().port,
        close: () => new Promise((done) => {
          for (const s of sockets) s.destroy();
          for (const c of wss.clients) c.terminate();
          wss.close();
          server.close(() => done());
          server.closeAllConnections?.();
        }),
      });
    });
  });
}

// Command line use, for trying the page by hand against a running qirkatd.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const arg = (name, def) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? process.argv[i + 1] : def;
  };
  const [host, port] = arg('--listen', '127.0.0.1:7421').split(':');
  const [tcpHost, tcpPort] = arg('--server', '127.0.0.1:7420').split(':');
  const webRoot = path.resolve(arg('--web', path.resolve(here, '../../web')));
  startBridge({ host, port: Number(port), tcpHost, tcpPort: Number(tcpPort), webRoot }).then((b) => {
    console.log(`bridge: http://${host}:${b.port}/ -> qirkatd ${tcpHost}:${tcpPort} (web: ${webRoot})`);
  });
}
