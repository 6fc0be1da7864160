// REST calls and small localStorage helpers.
import { defaultName } from './i18n.js';

export class ApiError extends Error {
  constructor(status, message, body) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

/** Turn a FastAPI/our error body into one readable line. */
export function errorText(status, body) {
  if (!body) return `HTTP ${status}`;
  const d = body.detail !== undefined ? body.detail : body;
  if (typeof d === 'string') return d;
  if (Array.isArray(d)) {
    // FastAPI 422: [{loc: [...], msg, type}]
    return d.map((e) => {
      const loc = Array.isArray(e.loc) ? e.loc.filter((x) => x !== 'body').join('.') : '';
      return loc ? `${loc}: ${e.msg}` : (e.msg || JSON.stringify(e));
    }).join('; ');
  }
  if (d && typeof d === 'object') {
    const parts = [];
    if (d.code) parts.push(d.code);
    if (d.field) parts.push(d.field);
    if (d.message) parts.push(d.message);
    if (parts.length) return parts.join(': ');
    return JSON.stringify(d);
  }
  return `HTTP ${status}`;
}

export async function request(method, path, body, token) {
  const init = { method, headers: {} };
  if (token) init.headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch (e) {
    throw new ApiError(0, `network: ${e.message}`, null);
  }
  let data = null;
  const text = await res.text();
  if (text) {
    try { data = JSON.parse(text); } catch (e) { data = { detail: text }; }
  }
  if (!res.ok) throw new ApiError(res.status, errorText(res.status, data), data);
  return data;
}

export const api = {
  createRoom: (options, game = 'guiyang') => request('POST', '/api/rooms', { game, options }),
  games: () => request('GET', '/api/games'),
  // Sends the player code (the profile's secret, issue 14); a join without one makes a profile.
  join: (code, name, seat = null) => joinWithProfile(code, name, seat),
  // Needs the token of a seat in the room (the server answers 401 / 403 without one).
  addBots: (code, count, token) => request('POST', `/api/rooms/${encodeURIComponent(code)}/bots`, { count }, token),
  // One bot for one chosen free seat; take a bot out of its seat again (before the deal).
  addBot: (code, seat, token) => request('POST', `/api/rooms/${encodeURIComponent(code)}/bots`, { count: 1, seat }, token),
  removeBot: (code, seat, token) => request('DELETE', `/api/rooms/${encodeURIComponent(code)}/bots/${seat}`, undefined, token),
  room: (code) => request('GET', `/api/rooms/${encodeURIComponent(code)}`),
  // 再来一场: the next room of a session that is over ({code}; the same for every player).
  again: (code, token) => request('POST', `/api/rooms/${encodeURIComponent(code)}/again`, undefined, token),
  // The rooms the browser's player sat in, newest first (needs the profile's player code).
  myRooms: () => request('GET', '/api/me/rooms?limit=20', undefined, (profile.get() || {}).code),
};

// --- localStorage ---------------------------------------------------------
function lsGet(k) { try { return localStorage.getItem(k); } catch (e) { return null; } }
function lsSet(k, v) { try { localStorage.setItem(k, v); } catch (e) { /* ignore */ } }
function lsDel(k) { try { localStorage.removeItem(k); } catch (e) { /* ignore */ } }

export const store = {
  name: () => lsGet('gy.name') || '',
  setName: (n) => lsSet('gy.name', n),
  seat(code) {
    const raw = lsGet(`gy.seat.${code}`);
    if (!raw) return null;
    try { return JSON.parse(raw); } catch (e) { return null; }
  },
  setSeat(code, seat, token) { lsSet(`gy.seat.${code}`, JSON.stringify({ seat, token })); },
  clearSeat(code) { lsDel(`gy.seat.${code}`); },
  /** The game and options of the last room made here ({game, options}), or null. */
  rules() {
    try { const r = JSON.parse(lsGet('gy.rules')); return r && typeof r === 'object' && r.options ? r : null; } catch (e) { return null; }
  },
  setRules(game, options) { lsSet('gy.rules', JSON.stringify({ game, options })); },
};

// --- player profile (issue 14) ---------------------------------------------
// {id, name, code}: `code` is the player code, the profile's secret (the server keeps its hash).
const PROFILE_KEY = 'gy.profile';
export const profile = {
  get() {
    const raw = lsGet(PROFILE_KEY);
    if (!raw) return null;
    try { const p = JSON.parse(raw); return p && p.code ? p : null; } catch (e) { return null; }
  },
  set(p) { lsSet(PROFILE_KEY, JSON.stringify({ id: p.id, name: p.name, code: p.code })); },
  clear() { lsDel(PROFILE_KEY); },
};

let ensuring = null;
/** The browser's profile, made on the first visit (one request at a time). */
export function ensureProfile(name) {
  const have = profile.get();
  if (have) return Promise.resolve(have);
  if (!ensuring) {
    const n = (name || store.name() || '').trim() || defaultName();
    ensuring = request('POST', '/api/profiles', { name: n })
      .then((p) => { if (!profile.get()) profile.set(p); return profile.get(); })
      .finally(() => { ensuring = null; });
  }
  return ensuring;
}

async function joinWithProfile(code, name, seat = null) {
  const path = `/api/rooms/${encodeURIComponent(code)}/join`;
  const body = Number.isInteger(seat) ? { name, seat } : { name }; // the seat wanted, if free
  let mine = null;
  try { mine = await ensureProfile(name); } catch (e) { mine = null; }
  let joined;
  try {
    joined = await request('POST', path, body, mine && mine.code);
  } catch (e) {
    // a code the server does not know (its database was reset): join as a new player
    const d = e.body && e.body.detail;
    if (!(e instanceof ApiError) || e.status !== 403 || !d || d.code !== 'bad_player_code') throw e;
    profile.clear();
    joined = await request('POST', path, body);
  }
  const p = joined && joined.player;
  if (p && p.code) profile.set(p);
  else if (p && mine) profile.set({ ...mine, name: p.name });
  return joined;
}
