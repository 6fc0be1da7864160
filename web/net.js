// WebSocket connection with exponential-backoff reconnect.

/** A socket that has said nothing for QUIET_MS is pinged; one that then stays silent for
 *  ANSWER_MS more is taken for dead (a network that dropped without closing it) and given
 *  up for a new one. Checked every CHECK_MS. */
const QUIET_MS = 15000;
const ANSWER_MS = 6000;
const CHECK_MS = 1000;
/** After an action, the room answers at once: a socket silent for ACTION_QUIET_MS after one
 *  is pinged, and given up if that ping is not answered in ACTION_ANSWER_MS (a stalled
 *  network noticed in seconds, not at the turn's end). */
const ACTION_QUIET_MS = 3000;
const ACTION_ANSWER_MS = 3000;
/** A socket not open OPEN_MS after it was made (a half-dead network that takes the
 *  connection and never answers) is given up for a new one. */
const OPEN_MS = 8000;

export class RoomSocket {
  /**
   * @param {string} code room code
   * @param {string|null} token seat token (null = spectator)
   * @param {object} handlers {onMessage(msg), onState(state, info), onFatal(code, msg)}
   */
  constructor(code, token, handlers) {
    this.code = code;
    this.token = token;
    this.h = handlers;
    this.ws = null;
    this.attempt = 0;
    this.timer = null;
    this.closed = false;
    this.seq = 0;
    this.everOpened = false;
    this.heardAt = 0;
    this.pingAt = null;
    this.answerMs = ANSWER_MS; // how long the ping out since pingAt may go unanswered
    this.actionAt = null; // when an action went out that nothing has come back after
    this.openTimer = null;
    // the browser's word on the network: offline gives the socket up at once (it would
    // otherwise look connected until its silence is noticed), online tries again now
    this.onOffline = () => this.drop();
    this.onOnline = () => { if (!this.closed && !this.ws) { this.attempt = 0; this.connect(); } };
    // a phone back from another app: its socket may have died while it slept (and been
    // silent for a minute, which checkAlive would take 21 s to notice), or the next try
    // be seconds away; try now, or ping now with the short answer window
    this.onVisible = () => {
      if (document.visibilityState !== 'visible' || this.closed) return;
      if (!this.ws) this.onOnline();
      else if (this.pingAt === null && this.send({ type: 'ping' })) this.ping(ACTION_ANSWER_MS);
    };
    window.addEventListener('offline', this.onOffline);
    window.addEventListener('online', this.onOnline);
    document.addEventListener('visibilitychange', this.onVisible);
  }

  /** A ping went out: the socket is given up if nothing comes back in `answerMs`. */
  ping(answerMs) {
    this.pingAt = Date.now();
    this.answerMs = answerMs;
  }

  url() {
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const q = this.token ? `?token=${encodeURIComponent(this.token)}` : '';
    return `${proto}//${location.host}/ws/rooms/${encodeURIComponent(this.code)}${q}`;
  }

  connect() {
    if (this.closed) return;
    clearTimeout(this.timer);
    this.h.onState(this.everOpened ? 'reconnecting' : 'connecting', { attempt: this.attempt, retryAt: null });
    let ws;
    try {
      ws = new WebSocket(this.url());
    } catch (e) {
      this.scheduleReconnect();
      return;
    }
    this.ws = ws;
    clearTimeout(this.openTimer);
    this.openTimer = setTimeout(() => {
      if (this.ws === ws && ws.readyState === WebSocket.CONNECTING) this.drop();
    }, OPEN_MS);
    ws.onopen = () => {
      clearTimeout(this.openTimer);
      this.attempt = 0;
      this.everOpened = true;
      this.heardAt = Date.now();
      this.pingAt = null;
      this.h.onState('connected');
      clearInterval(this.pinger);
      this.pinger = setInterval(() => this.checkAlive(), CHECK_MS);
    };
    ws.onmessage = (ev) => {
      this.heardAt = Date.now();
      this.pingAt = null;
      this.actionAt = null;
      let msg;
      try { msg = JSON.parse(ev.data); } catch (e) { return; }
      this.h.onMessage(msg);
    };
    ws.onclose = (ev) => {
      if (this.ws !== ws) return;
      this.ws = null;
      clearInterval(this.pinger);
      if (this.closed) return;
      if (ev.code === 4401 || ev.code === 4404 || ev.code === 4409) {
        this.closed = true;
        this.h.onState('closed');
        this.h.onFatal(ev.code, ev.reason);
        return;
      }
      this.scheduleReconnect();
    };
    ws.onerror = () => { /* onclose follows */ };
  }

  /** Ping a socket quiet for QUIET_MS (ACTION_QUIET_MS after an action it has not answered);
   *  give it up if the answer has not come in ANSWER_MS (ACTION_ANSWER_MS). */
  checkAlive() {
    const now = Date.now();
    const acted = this.actionAt !== null;
    if (this.pingAt !== null) {
      if (now - this.pingAt > this.answerMs) this.drop();
    } else if (now - (acted ? this.actionAt : this.heardAt) > (acted ? ACTION_QUIET_MS : QUIET_MS)
      && this.send({ type: 'ping' })) {
      this.ping(acted ? ACTION_ANSWER_MS : ANSWER_MS);
    }
  }

  /** Give the open socket up (silent, or the browser went offline) and try again: the
   *  first try in half a second, then the usual backoff. */
  drop() {
    const ws = this.ws;
    if (this.closed || !ws) return;
    this.ws = null; // its onclose, whenever it comes, is then ignored
    clearInterval(this.pinger);
    clearTimeout(this.openTimer);
    this.actionAt = null;
    try { ws.close(); } catch (e) { /* already closing */ }
    this.attempt = 0;
    this.scheduleReconnect();
  }

  /** Next try after 0.5 s, 1 s, 2 s, ... up to 10 s (±20 % jitter); `delays` keeps them. */
  scheduleReconnect() {
    if (this.closed) return;
    const delay = Math.min(10000, 500 * 2 ** this.attempt) * (0.8 + Math.random() * 0.4);
    this.attempt += 1;
    this.delays = [...(this.delays || []), Math.round(delay)].slice(-20);
    this.h.onState('reconnecting', { attempt: this.attempt, retryAt: Date.now() + delay });
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.connect(), delay);
  }

  send(obj) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(obj));
    return true;
  }

  /** An action answering prompt `prompt` (the number of the message that carried `legal`). */
  sendAction(action, prompt) {
    this.seq += 1;
    const msg = { type: 'action', seq: this.seq, action };
    if (typeof prompt === 'number') msg.prompt = prompt;
    return this.sendAnswered(msg);
  }

  /** Send `obj`, which the room answers at once (an action, a ready, a vote): a socket
   *  that then stays silent is noticed in seconds (ACTION_QUIET_MS), as after an action. */
  sendAnswered(obj) {
    const sent = this.send(obj);
    if (sent && this.actionAt === null) this.actionAt = Date.now();
    return sent;
  }

  /** Reconnect after a fatal close (e.g. the seat was taken over by another tab). */
  reopen() {
    this.closed = false;
    this.attempt = 0;
    this.connect();
  }

  close() {
    this.closed = true;
    window.removeEventListener('offline', this.onOffline);
    window.removeEventListener('online', this.onOnline);
    document.removeEventListener('visibilitychange', this.onVisible);
    clearTimeout(this.timer);
    clearTimeout(this.openTimer);
    clearInterval(this.pinger);
    if (this.ws) this.ws.close();
    this.ws = null;
  }
}
