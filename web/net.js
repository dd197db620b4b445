// The connection to qirkatd over WebSocket (../shared/PROTOCOL.md, "WebSocket
// transport": one protocol JSON object per text frame, same ops, events and
// errors as the TCP JSON lines).
//
// Why a class of its own: everything that can go wrong with a network lives
// here, so the screens only see "a request resolved or failed" and "an event
// arrived". It reconnects by itself with exponential backoff (a classroom's
// Wi-Fi drops, the server restarts), and after each (re)connect it runs the
// `onOpen` hook, which logs back in with the stored token and resubscribes:
// the login result carries the open challenges and active games, so nothing
// is missed while away (PROTOCOL.md, "Events").

export class Connection {
  /**
   * url: the ws:// or wss:// address of /ws.
   * handlers: onEvent(msg) for pushed events, onOpen() after every connect
   * (async; requests may be sent from it), onStatus(state) with
   * 'connecting' | 'open' | 'closed'.
   */
  constructor(url, handlers) {
    this.url = url;
    this.h = handlers;
    this.ws = null;
    this.nextId = 1;
    this.pending = new Map(); // id -> {resolve, reject}
    this.backoff = 500; // ms; doubles up to 15 s, reset after a good connection
    this.timer = null;
    this.state = 'closed';
    this.opens = 0; // connections made so far (the tests watch it)
  }

  start() {
    this.connect();
  }

  setState(s) {
    this.state = s;
    if (this.h.onStatus) this.h.onStatus(s);
  }

  connect() {
    clearTimeout(this.timer);
    this.setState('connecting');
    let ws;
    try {
      ws = new WebSocket(this.url);
    } catch (e) {
      this.scheduleReconnect();
      return;
    }
    this.ws = ws;
    ws.onopen = async () => {
      this.backoff = 500;
      this.opens++;
      this.setState('open');
      try {
        if (this.h.onOpen) await this.h.onOpen();
      } catch (e) {
        console.warn('after connect:', e);
      }
    };
    ws.onmessage = (ev) => this.receive(ev.data);
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
      // Nothing more will answer the requests in flight: fail them so no
      // screen waits for ever; the caller may retry after the reconnect.
      for (const p of this.pending.values()) p.reject({ code: 'offline', message: 'connection lost' });
      this.pending.clear();
      this.setState('closed');
      this.scheduleReconnect();
    };
    // onerror is always followed by onclose, which does the work.
    ws.onerror = () => {};
  }

  scheduleReconnect() {
    // Jitter so that a whole class does not reconnect in the same millisecond
    // after a server restart.
    const delay = this.backoff * (0.75 + Math.random() * 0.5);
    this.backoff = Math.min(this.backoff * 2, 15000);
    this.timer = setTimeout(() => this.connect(), delay);
  }

  /** Drop the connection now (it reconnects by itself): used by the tests and "reconnect". */
  drop() {
    if (this.ws) this.ws.close();
  }

  receive(text) {
    if (typeof text !== 'string' || text.trim() === '') return; // keepalives
    let msg;
    try {
      msg = JSON.parse(text);
    } catch (e) {
      console.warn('bad frame from server', text);
      return;
    }
    if (msg.type === 'event') {
      if (this.h.onEvent) this.h.onEvent(msg);
      return;
    }
    if (msg.id !== undefined && this.pending.has(msg.id)) {
      const p = this.pending.get(msg.id);
      this.pending.delete(msg.id);
      if (msg.type === 'ok') p.resolve(msg);
      else p.reject(msg);
      return;
    }
    // An error without an id (bad_json, line_too_long, the 60 s login limit).
    if (msg.type === 'error' && this.h.onEvent) this.h.onEvent({ type: 'event', event: 'error', error: msg });
  }

  /**
   * Send request `op` with `fields`; resolves with the ok message, rejects
   * with the error message (`code`, `message`, ...) or {code: 'offline'}.
   */
  request(op, fields = {}) {
    return new Promise((resolve, reject) => {
      if (!this.ws || this.ws.readyState !== WebSocket.OPEN) {
        reject({ code: 'offline', message: 'not connected' });
        return;
      }
      const id = this.nextId++;
      this.pending.set(id, { resolve, reject });
      this.ws.send(JSON.stringify({ ...fields, type: op, id }));
    });
  }
}
