// The browser tests' shared parts (run.mjs, school.mjs, french.mjs,
// results.mjs, access.mjs, ...): qirkatd started on ephemeral ports with a
// fresh database (`qirkatd --http`, or the TCP server plus bridge.mjs with
// QK_WEB_BRIDGE=1), a plain TCP protocol client (JSON lines, as a bot would),
// the chromium launch options, and browserSuite(): chromium and the server
// started before a file's tests and stopped after them.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { before, after } from 'node:test';
import { startBridge } from './bridge.mjs';

export const here = path.dirname(fileURLToPath(import.meta.url));
export const root = path.resolve(here, '../..');
export const BIN = path.resolve(root, process.env.QK_BIN || 'build');
export const SHARED = path.resolve(root, process.env.QK_SHARED || '../shared');
export const CHROMIUM = process.env.QK_CHROMIUM || '/usr/bin/chromium';
export const ARTIFACTS = path.join(BIN, 'web-artifacts'); // beside the binaries: build/web-artifacts

// ------------------------------------------------------------ the server

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/**
 * Start qirkatd; with httpPort, also `--http 127.0.0.1:httpPort`. Resolves to
 * {child, tcpPort} once it wrote its port to the ready fd, or to null if it
 * exited first (a binary without --http rejects the flag as a usage error).
 */
export function spawnQirkatd(dir, httpPort, tcpPort = 0) {
  const args = ['--listen', `127.0.0.1:${tcpPort}`, '--db', path.join(dir, 'web.db'), '--ready-fd', '3',
    '--pwhash', 'min', '--log-level', 'warn'];
  if (httpPort) args.push('--http', `127.0.0.1:${httpPort}`);
  const child = spawn(path.join(BIN, 'qirkatd'), args, { stdio: ['ignore', 'ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  return new Promise((resolve, reject) => {
    let ready = '';
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error('qirkatd not ready in 20 s: ' + stderr)); }, 20000);
    child.stdio[3].on('data', (d) => {
      ready += d;
      if (ready.includes('\n')) {
        clearTimeout(timer);
        resolve({ child, tcpPort: parseInt(ready, 10), stderr: () => stderr });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (!ready.includes('\n')) {
        // qirkatd has --http (server/net/ws.c): its failure is a failure. The
        // bridge stays for a binary without it, by choice only (QK_WEB_BRIDGE=1).
        if (httpPort && process.env.QK_WEB_BRIDGE === '1') resolve(null);
        else reject(new Error(`qirkatd exited (${code}): ${stderr}`));
      }
    });
    child.once('error', reject);
  });
}

export async function startServer() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qirkat-web-'));
  const httpPort = await freePort();
  const withHttp = await spawnQirkatd(dir, httpPort);
  // restart(): stop qirkatd and start it again on the same ports and database
  // (the page must reconnect, log in with its token and resubscribe).
  if (withHttp) {
    const s = { mode: `qirkatd --http 127.0.0.1:${httpPort}`, url: `http://127.0.0.1:${httpPort}/`, tcpPort: withHttp.tcpPort,
      child: withHttp.child, dir };
    s.stop = () => stopChild(s.child);
    s.restart = async () => {
      await stopChild(s.child);
      s.child = (await spawnQirkatd(dir, httpPort, s.tcpPort)).child;
    };
    return s;
  }
  fs.rmSync(path.join(dir, 'web.db'), { force: true });
  const srv = await spawnQirkatd(dir, 0);
  const bridge = await startBridge({ tcpPort: srv.tcpPort, webRoot: path.join(root, 'web') });
  const s = { mode: 'qirkatd (TCP) + tests/web/bridge.mjs (qirkatd has no --http yet)', url: `http://127.0.0.1:${bridge.port}/`,
    tcpPort: srv.tcpPort, child: srv.child, dir };
  s.stop = async () => { await bridge.close(); await stopChild(s.child); };
  s.restart = async () => {
    await stopChild(s.child);
    s.child = (await spawnQirkatd(dir, 0, s.tcpPort)).child;
  };
  return s;
}

/** The server of a browser test: started, announced on the test output, with
 * the screenshots' folder made. */
export async function serveForBrowser() {
  const server = await startServer();
  console.log(`# serving the page with ${server.mode} at ${server.url}`);
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  return server;
}

/** The skip reason when chromium does not start (its first line). */
export function chromiumSkip(e) {
  return `chromium cannot start: ${String(e.message || e).split('\n')[0]}`;
}

export function stopChild(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null) { resolve(); return; }
    const t = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => { clearTimeout(t); resolve(); });
    child.kill('SIGTERM');
  });
}

// ------------------------------------------------------------ a TCP client

export class TcpClient {
  constructor(port) {
    this.port = port;
    this.nextId = 1;
    this.pending = new Map();
    this.events = [];
    this.waiters = [];
  }

  connect() {
    return new Promise((resolve, reject) => {
      this.sock = net.connect(this.port, '127.0.0.1', resolve);
      this.sock.once('error', reject);
      this.sock.setEncoding('utf8');
      let buf = '';
      this.sock.on('data', (d) => {
        buf += d;
        let i;
        while ((i = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, i);
          buf = buf.slice(i + 1);
          if (line.trim()) this.receive(JSON.parse(line));
        }
      });
    });
  }

  receive(msg) {
    if (msg.type === 'event') {
      this.events.push(msg);
      this.waiters = this.waiters.filter((w) => !(w.pred(msg) && (w.resolve(msg), true)));
      return;
    }
    const p = this.pending.get(msg.id);
    if (!p) return;
    this.pending.delete(msg.id);
    if (msg.type === 'ok') p.resolve(msg);
    else p.reject(Object.assign(new Error(`${msg.code}: ${msg.message}`), msg));
  }

  request(op, fields = {}) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.sock.write(JSON.stringify({ type: op, id, ...fields }) + '\n');
    });
  }

  /** The first event (already received or to come) matching pred. */
  waitEvent(pred, ms = 15000) {
    const seen = this.events.find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const w = { pred, resolve: (m) => { clearTimeout(t); resolve(m); } };
      const t = setTimeout(() => {
        this.waiters = this.waiters.filter((x) => x !== w);
        reject(new Error('no such event in time'));
      }, ms);
      this.waiters.push(w);
    });
  }

  close() {
    this.sock?.destroy();
  }
}

/** Debian's chromium, headless, reaching nothing but the test server. */
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/**
 * A browser test file's set-up, as node:test hooks: before its tests,
 * Debian's chromium (never a downloaded one) and a fresh qirkatd; after
 * them, both stopped and the temporary files removed. Returns the object the
 * hooks fill in: {chromium, browser, context, server, skipWhy, pageErrors,
 * foreign}.
 * - opts.persistent ({args, locale, viewport}): one persistent context with a
 *   profile of its own (`context`; its localStorage survives a reload);
 *   otherwise `browser`, from which newPage() makes pages of separate contexts.
 * - skip(t): true (and the test marked skipped, "SKIP" printed) when chromium
 *   cannot start; the only case a browser test passes without running.
 * - newPage(viewport, ctxOpts): a page of a new context that records page
 *   errors (pageErrors) and every request that leaves the test server (foreign).
 * - register(page, name, password, op): log in or register in the page.
 */
export function browserSuite(opts = {}) {
  const st = { browser: null, context: null, server: null, skipWhy: null, pageErrors: [], foreign: [], profile: null };
  before(async () => {
    // A missing playwright-core is a broken set-up (deploy/deps.sh runs npm ci), not a skip.
    const { chromium } = await import('playwright-core');
    st.chromium = chromium;
    try {
      if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} does not exist (apt-get install chromium)`);
      if (opts.persistent) {
        st.profile = fs.mkdtempSync(path.join(os.tmpdir(), 'qirkat-chromium-'));
        const p = opts.persistent;
        st.context = await chromium.launchPersistentContext(st.profile, {
          executablePath: CHROMIUM, headless: true, args: [...CHROMIUM_ARGS, ...(p.args || [])],
          ...(p.locale ? { locale: p.locale } : {}), viewport: p.viewport || { width: 1024, height: 800 }, timeout: 30000,
        });
      } else {
        st.browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, timeout: 30000 });
      }
    } catch (e) {
      st.skipWhy = chromiumSkip(e);
      return;
    }
    st.server = await serveForBrowser();
  });
  after(async () => {
    if (st.context) await st.context.close();
    if (st.browser) await st.browser.close();
    if (st.server) {
      await st.server.stop();
      fs.rmSync(st.server.dir, { recursive: true, force: true });
    }
    if (st.profile) fs.rmSync(st.profile, { recursive: true, force: true });
  });
  st.skip = (t) => {
    if (!st.skipWhy) return false;
    console.log(`SKIP: ${st.skipWhy}`);
    t.skip(st.skipWhy);
    return true;
  };
  st.watch = (page) => {
    page.setDefaultTimeout(15000);
    page.on('pageerror', (e) => st.pageErrors.push(String(e)));
    const origin = new URL(st.server.url).origin;
    page.on('request', (r) => {
      const u = r.url();
      if (!u.startsWith(origin) && !u.startsWith(origin.replace('http', 'ws')) && !u.startsWith('data:') && !u.startsWith('blob:')) st.foreign.push(u);
    });
    return page;
  };
  st.newPage = async (viewport = { width: 1024, height: 800 }, ctxOpts = {}) => {
    const ctx = await st.browser.newContext({ viewport, ...ctxOpts });
    return st.watch(await ctx.newPage());
  };
  st.register = async (page, username, password, op = 'register') => {
    await page.goto(st.server.url);
    await page.locator('#login-form input[name=username]').fill(username);
    await page.locator('#login-form input[name=password]').fill(password);
    await page.locator(op === 'register' ? '#btn-register' : '#btn-login').click();
    await page.locator('#lobby').waitFor();
  };
  st.tcp = async (username, password, op = 'register', extra = {}) => {
    const c = new TcpClient(st.server.tcpPort);
    await c.connect();
    await c.request(op, { username, password, ...extra });
    return c;
  };
  return st;
}
