// WebSocket connection with exponential-backoff reconnect.

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
    ws.onopen = () => {
      this.attempt = 0;
      this.everOpened = true;
      this.h.onState('connected');
      clearInterval(this.pinger);
      this.pinger = setInterval(() => this.send({ type: 'ping' }), 25000);
    };
    ws.onmessage = (ev) => {
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
    return this.send(msg);
  }

  /** Reconnect after a fatal close (e.g. the seat was taken over by another tab). */
  reopen() {
    this.closed = false;
    this.attempt = 0;
    this.connect();
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    clearInterval(this.pinger);
    if (this.ws) this.ws.close();
    this.ws = null;
  }
}
