// 贵阳捉鸡麻将 browser client. Plain ES modules, no build step.
// The server sends each seat its own `view` and `legal` actions; we render `view` and offer `legal`.
import { t, getLang, setLang, translateDom, reasonText, handTypeText, WIN_KINDS, errorMessage, validationMessage } from './i18n.js';
import { tileEl, tileName, sortTiles, suitOf, suitChar } from './tiles.js';
import { api, store, ApiError } from './api.js';
import { RoomSocket } from './net.js';

const $ = (sel, root = document) => root.querySelector(sel);
const h = (tag, attrs = {}, ...children) => {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k === 'text') el.textContent = v;
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
  return el;
};

const ENDED_STATUSES = new Set(['finished', 'dissolved', 'ended', 'over', 'closed', 'done', 'complete', 'completed']);
const CLAIM_ORDER = ['win', 'self_draw', 'kong', 'pong', 'chow', 'pass'];

const S = {
  code: null,
  seat: null, // my seat (null: spectator)
  token: null,
  room: null, // room info (GET /api/rooms/{code} shape)
  view: null,
  legal: [],
  deadline: null,
  version: 0,
  prompt: null,
  conn: 'idle',
  socket: null,
  pending: false,
  baoTing: false,
  selected: null, // {tile, index}: a hand tile raised by a first tap (touch screens)
  settlement: null, // {settlement, totals, handNo}
  settlementOpen: false,
  endedSeen: false,
  readySent: false,
  sessionOver: false,
  lastEvent: null,
  lastDiscardSeen: null,
  autoSeats: [],
  readySeats: [],
  pollTimer: null,
  // versions: the last (hand_no, version) seen on this connection; `fromEvent` when it came from
  // an event (then the next event's prev_version must equal it), not from a snapshot
  seen: null,
  syncPending: false,
  syncCount: 0,
  answeredPrompt: null, // the prompt this seat already answered (answer each prompt once)
  staleCount: 0, // stale_prompt errors (shown gently: a re-render)
  lastError: null,
  vote: null, // the open dissolve_vote message
  voteResult: null, // {result, votes} of the last closed vote, until dismissed
  confirmDissolve: false,
  standings: null, // final standings (session_end / snapshot)
  dissolved: false,
};
window.__gy = S; // for debugging and tests

// ------------------------------------------------------------------ helpers
function toast(msg, kind = 'error') {
  const el = $('#toast');
  el.textContent = msg;
  el.dataset.kind = kind;
  el.hidden = false;
  clearTimeout(toast._t);
  toast._t = setTimeout(() => { el.hidden = true; }, 5000);
}

function showError(el, msg, err = null) {
  el.textContent = msg;
  el.hidden = !msg;
  // what was refused, for tests and bug reports: the HTTP status, the code, the bad fields
  el.dataset.status = err && err.status !== undefined ? String(err.status) : '';
  el.dataset.code = (err && err.code) || '';
  el.dataset.fields = (err && err.fields) || '';
}

/** An option's or field's label as the form shows it (the catalog's for a game's own option). */
function fieldLabel(key) {
  if (key === 'name') return t('your_name');
  const spec = GAMES && GAMES.find((g) => g.name === chosenGame());
  const o = spec && spec.options.find((x) => x.name === key);
  if (o) return getLang() === 'en' ? o.label_en : o.label_zh;
  const label = t(key);
  return label === key ? key : label;
}

/** A refused REST call as the player reads it: the code's localised message, a 422 naming
 *  each bad option by its label. Also fills ``e.code`` / ``e.fields`` for showError. */
function apiErrorText(e) {
  if (!(e instanceof ApiError)) return String(e && e.message ? e.message : e);
  const d = e.body && e.body.detail;
  if (e.status === 422 && Array.isArray(d)) {
    e.code = 'validation';
    e.fields = d.map((x) => (Array.isArray(x.loc) ? x.loc.filter((k) => k !== 'body' && k !== 'options').join('.') : ''))
      .filter(Boolean).join(' ');
    return validationMessage(d, fieldLabel);
  }
  if (e.status === 0) { e.code = 'network'; return errorMessage('network'); }
  const code = d && typeof d === 'object' ? d.code : null;
  e.code = code || '';
  if (code) return errorMessage(code, { code: e.roomCode || '' });
  return errorMessage(null, { code: `HTTP ${e.status}` });
}

function seatName(i) {
  if (i === null || i === undefined) return '';
  const info = S.room && Array.isArray(S.room.seats) ? S.room.seats.find((x) => x && x.seat === i) : null;
  let name = info && info.name ? info.name : `${t('seat')}${i + 1}`;
  if (i === S.seat) name += ` (${t('you')})`;
  return name;
}

function nPlayers() {
  return (S.view && S.view.players) || (S.room && S.room.options && S.room.options.players) || 4;
}

function relLabel(i) {
  if (S.seat === null || S.seat === undefined) return '';
  const n = nPlayers();
  const off = (i - S.seat + n) % n;
  if (n === 2) return t('opposite');
  if (n === 3) return off === 1 ? t('next_seat') : t('prev_seat');
  return [null, t('next_seat'), t('opposite'), t('prev_seat')][off] || '';
}

/** Where seat ``i`` sits at the table, as in the apps: you at the bottom, 下家 ((me+1)%n) on
 *  the right, 对家 at the top, 上家 ((me-1)%n) on the left; 3 players: right and left; 2: top.
 *  A spectator sees the table from seat 0. */
function seatPos(i) {
  const n = nPlayers();
  const me = S.seat === null || S.seat === undefined ? 0 : S.seat;
  const off = (i - me + n) % n;
  if (off === 0) return 'bottom';
  if (n === 2) return 'top';
  if (n === 3) return off === 1 ? 'right' : 'left';
  return ['bottom', 'right', 'top', 'left'][off];
}

function totals() {
  if (S.room && Array.isArray(S.room.totals)) return S.room.totals;
  return [];
}

function fmtPts(v) {
  if (typeof v !== 'number') return v === undefined || v === null ? '' : String(v);
  return v > 0 ? `+${v}` : String(v);
}

function optionsSummary(o, game = 'guiyang') {
  if (!o) return '';
  const parts = [];
  if (game === 'jintan') {
    parts.push(t('game_jintan'), `${t('jt_base')} ${o.base}`, `${t('jt_flower_value')} ${o.flower_value}`);
    parts.push(o.chow ? t('jt_chow') : t('jt_no_chow'));
    if (o.hands) parts.push(t('hands_n', { n: o.hands }));
    return parts.join(' · ');
  }
  const pl = { 4: t('players_4'), 3: t('players_3'), 2: t('players_2') }[o.players] || o.players;
  parts.push(pl);
  parts.push({ lian_zhuang: '连庄', yi_kou_san: '一扣三', yi_kou_er: '一扣二' }[o.scoring] || o.scoring);
  if (o.yao_bai_ji) parts.push('摇摆鸡');
  if (o.man_tang_ji) parts.push('满堂鸡');
  for (const k of CHICKEN_OPTIONS) if (o[k]) parts.push(t(k));
  if (o.hands) parts.push(t('hands_n', { n: o.hands }));
  if (o.base_points && o.base_points !== 1) parts.push(`${t('base_points')} ${o.base_points}`);
  if (typeof o.bank_seconds === 'number') parts.push(`${t('bank_seconds')} ${o.bank_seconds}s`);
  return parts.join(' · ');
}

function setUrlRoom(code) {
  const url = new URL(location.href);
  if (code) url.searchParams.set('room', code);
  else url.searchParams.delete('room');
  history.replaceState(null, '', url.toString());
}

function shareUrl(code) {
  const url = new URL(location.href);
  url.search = '';
  url.hash = '';
  url.searchParams.set('room', code);
  return url.toString();
}

// ------------------------------------------------------------------ lobby
// Options every game's form shares (static controls); the rest of a game's options come from
// GET /api/games and are drawn into #game-options (Jintan), or are the Guiyang form's own.
const COMMON_OPTIONS = new Set(['hands', 'claim_seconds', 'turn_seconds', 'bank_seconds', 'players']);
let GAMES = null; // GET /api/games, once

function chosenGame() {
  const el = document.querySelector('input[name="game"]:checked');
  return el ? el.value : 'guiyang';
}

/** Draw the chosen game's own options from the catalog (labels in the page's language). */
async function renderGameOptions() {
  const game = chosenGame();
  document.querySelectorAll('.guiyang-only').forEach((el) => { el.hidden = game !== 'guiyang'; });
  const box = $('#game-options');
  box.replaceChildren();
  box.hidden = game === 'guiyang';
  if (game === 'guiyang') return;
  if (!GAMES) {
    try { GAMES = (await api.games()).games; } catch (e) { showError($('#lobby-error'), apiErrorText(e), e); return; }
  }
  const spec = GAMES.find((g) => g.name === game);
  if (!spec) return;
  const en = getLang() === 'en';
  for (const o of spec.options) {
    if (COMMON_OPTIONS.has(o.name)) continue;
    const label = en ? o.label_en : o.label_zh;
    const id = `gopt-${o.name}`;
    if (o.type === 'bool') {
      box.append(h('label', { class: 'check' },
        h('input', { type: 'checkbox', id, checked: o.default ? true : null, dataset: { option: o.name, kind: 'bool' } }),
        h('span', { text: label })));
    } else {
      box.append(h('label', { class: 'field small' }, h('span', { text: label }),
        h('input', {
          type: o.type === 'int' ? 'number' : 'text', id, value: String(o.default),
          min: o.min ?? null, max: o.max ?? null, dataset: { option: o.name, kind: o.type },
        })));
    }
  }
}

function readGameOptions() {
  const out = {};
  document.querySelectorAll('#game-options [data-option]').forEach((el) => {
    const kind = el.dataset.kind;
    if (kind === 'bool') out[el.dataset.option] = el.checked;
    else if (kind === 'int') {
      const n = Number(el.value.trim());
      out[el.dataset.option] = el.value.trim() !== '' && Number.isFinite(n) ? n : el.value; // the server refuses garbage
    } else out[el.dataset.option] = el.value;
  });
  return out;
}

function readOptions() {
  const radio = (name) => {
    const el = document.querySelector(`input[name="${name}"]:checked`);
    return el ? parseInt(el.value, 10) : undefined;
  };
  const num = (id) => {
    const v = $(id).value.trim();
    if (v === '') return undefined;
    const n = Number(v);
    return Number.isFinite(n) ? n : v; // let the server refuse garbage
  };
  if (chosenGame() !== 'guiyang') {
    const opts = {
      hands: radio('hands'),
      claim_seconds: num('#opt-claim-seconds'),
      turn_seconds: num('#opt-turn-seconds'),
      bank_seconds: radio('bank_seconds'),
      ...readGameOptions(),
    };
    for (const k of Object.keys(opts)) if (opts[k] === undefined) delete opts[k];
    return opts;
  }
  const lz = $('#opt-lian-zhuang').checked;
  const yks = $('#opt-yi-kou-san').checked;
  const opts = {
    players: radio('players'),
    hands: radio('hands'),
    // the form's two exclusive checkboxes as such: the server checks the combination (§10.1)
    lian_zhuang: lz,
    yi_kou_san: yks,
    yao_bai_ji: $('#opt-yao-bai-ji').checked,
    man_tang_ji: $('#opt-man-tang-ji').checked,
    wu_gu_ji: $('#opt-wu-gu-ji').checked,
    ben_ji: $('#opt-ben-ji').checked,
    xing_qi_ji: $('#opt-xing-qi-ji').checked,
    chui_feng_ji: $('#opt-chui-feng-ji').checked,
    claim_seconds: num('#opt-claim-seconds'),
    turn_seconds: num('#opt-turn-seconds'),
    bank_seconds: radio('bank_seconds'),
    base_points: num('#opt-base-points'),
    fan_table: $('#opt-fan-table').value,
    dou_values: $('#opt-dou-values').value,
    multiple_winners: $('#opt-multiple-winners').checked,
    pass_pong_lock: $('#opt-pass-pong-lock').checked,
  };
  for (const k of Object.keys(opts)) if (opts[k] === undefined) delete opts[k];
  return opts;
}

function myName() {
  let name = $('#name').value.trim();
  if (!name) {
    name = `${getLang() === 'zh' ? '玩家' : 'Player'}${Math.floor(Math.random() * 900 + 100)}`;
    $('#name').value = name;
  }
  store.setName(name);
  return name;
}

async function onCreate(ev) {
  ev.preventDefault();
  const err = $('#lobby-error');
  showError(err, '');
  const btn = $('#create-room');
  btn.disabled = true;
  try {
    const opts = readOptions();
    const room = await api.createRoom(opts, chosenGame());
    const code = room.code;
    const joined = await api.join(code, myName());
    store.setSeat(code, joined.seat, joined.token);
    setUrlRoom(code);
    enterRoom(code, joined);
  } catch (e) {
    showError(err, apiErrorText(e), e);
  } finally {
    btn.disabled = false;
  }
}

async function onJoin(ev) {
  ev.preventDefault();
  const err = $('#join-error');
  showError(err, '');
  const code = $('#join-code').value.trim().toUpperCase();
  if (!code) { showError(err, t('room_code') + '?'); return; }
  const stored = store.seat(code);
  if (stored && stored.token) {
    setUrlRoom(code);
    enterRoom(code, stored);
    return;
  }
  const btn = $('#join-btn');
  btn.disabled = true;
  try {
    const joined = await api.join(code, myName());
    store.setSeat(code, joined.seat, joined.token);
    setUrlRoom(code);
    enterRoom(code, joined);
  } catch (e) {
    if (e instanceof ApiError) e.roomCode = code;
    showError(err, apiErrorText(e), e);
  } finally {
    btn.disabled = false;
  }
}

function showLobby(code) {
  leaveRoom();
  $('#lobby').hidden = false;
  $('#room').hidden = true;
  $('#room-badge').hidden = true;
  $('#conn-state').hidden = true;
  $('#reconnect-btn').hidden = true;
  $('#name').value = store.name();
  if (code) {
    $('#join-code').value = code;
    $('#join-card').classList.add('focus');
    $('#join-card').parentNode.insertBefore($('#join-card'), $('#create-card'));
    // a shared link to a room that does not exist says so at once, not after 加入
    showError($('#join-error'), '');
    api.room(code).catch((e) => {
      if (!(e instanceof ApiError) || e.status !== 404) return;
      if ($('#join-code').value.trim().toUpperCase() !== code) return;
      e.roomCode = code;
      showError($('#join-error'), apiErrorText(e), e);
    });
  }
}

// ------------------------------------------------------------------ room
function leaveRoom() {
  if (S.socket) S.socket.close();
  S.socket = null;
  clearInterval(S.pollTimer);
  S.pollTimer = null;
}

function enterRoom(code, seatInfo) {
  leaveRoom();
  Object.assign(S, {
    code, seat: seatInfo && seatInfo.seat !== undefined ? seatInfo.seat : null,
    token: seatInfo ? seatInfo.token : null, room: null, view: null, legal: [], deadline: null,
    lastDiscardSeen: null, settlement: null, settlementOpen: false, endedSeen: false, readySent: false, autoSeats: [], readySeats: [], sessionOver: false, pending: false,
    seen: null, syncPending: false, answeredPrompt: null, vote: null, voteResult: null, confirmDissolve: false, standings: null, dissolved: false,
  });
  $('#lobby').hidden = true;
  $('#room').hidden = false;
  $('#room-badge').hidden = false;
  $('#conn-state').hidden = false;
  $('#room-code').textContent = code;
  $('#room-code-top').textContent = code;
  $('#share-link').value = shareUrl(code);
  renderAll();
  refreshRoom();
  S.pollTimer = setInterval(() => { if (!document.hidden) refreshRoom(); }, 4000);
  S.socket = new RoomSocket(code, S.token, {
    onMessage,
    onState: setConn,
    onFatal: (wsCode) => {
      if (wsCode === 4409) {
        S.replaced = true;
        toast(t('replaced'));
        renderAll();
        return;
      }
      if (wsCode === 4401) {
        store.clearSeat(code);
        toast('bad_token');
        showLobby(code);
      } else {
        toast('unknown_room');
        store.clearSeat(code);
        setUrlRoom(null);
        showLobby(null);
      }
    },
  });
  S.socket.connect();
}

async function refreshRoom() {
  if (!S.code) return;
  const code = S.code;
  try {
    const room = await api.room(code);
    if (S.code !== code) return;
    S.room = room;
    if (room && ENDED_STATUSES.has(room.status)) S.sessionOver = true;
    renderAll();
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) {
      toast(errorMessage('unknown_room', { code }));
    }
  }
}

function setConn(state, info) {
  S.conn = state;
  if (info) S.connInfo = info;
  if (state === 'connected') {
    S.replaced = false; S.connInfo = null;
    S.seen = null; // a new connection: its first snapshot is the truth, whatever its version
    S.syncPending = false;
  }
  const el = $('#conn-state');
  el.dataset.state = state;
  document.body.dataset.conn = state; // the table is dimmed while the socket is down
  el.dataset.attempt = String((S.connInfo && S.connInfo.attempt) || 0);
  renderConnText();
  el.title = '';
  const rb = $('#reconnect-btn');
  if (rb) rb.hidden = state !== 'closed';
}

/** (hand_no, version) of `msg` is newer than anything seen on this connection. */
function isNewer(msg) {
  if (!S.seen || typeof msg.hand_no !== 'number' || typeof msg.version !== 'number') return true;
  if (msg.hand_no !== S.seen.hand) return msg.hand_no > S.seen.hand;
  return msg.version > S.seen.version;
}

/** A message meant for this seat was lost: ask for a fresh snapshot (once at a time). */
function requestSync() {
  if (S.syncPending || !S.socket) return;
  if (S.socket.send({ type: 'sync' })) {
    S.syncPending = true;
    S.syncCount += 1;
    clearTimeout(requestSync._t);
    requestSync._t = setTimeout(() => { S.syncPending = false; }, 5000);
  }
}

/** An event / hand_end whose prev_version shows that a message before it never arrived, or
 * cannot show that none did (no usable prev_version: e.g. the room was just rebuilt on another
 * server process): either way, resync. */
function missedBefore(msg) {
  if (!S.seen || typeof msg.hand_no !== 'number') return false;
  if (msg.hand_no > S.seen.hand) return true; // the deal's snapshot was lost
  const prev = msg.prev_version;
  if (typeof prev !== 'number') return true; // the server does not know what came before
  if (prev > S.seen.version) return true;
  // after an event, the next one must follow it exactly (after a snapshot, prev may be older:
  // events private to other seats are counted in the snapshot's version)
  return S.seen.fromEvent && prev !== S.seen.version;
}

function noteSeen(msg, fromEvent) {
  if (typeof msg.hand_no === 'number' && typeof msg.version === 'number') {
    S.seen = { hand: msg.hand_no, version: msg.version, fromEvent };
  }
}

function onMessage(msg) {
  switch (msg.type) {
    case 'snapshot':
      if (S.seen && !isNewer(msg) && msg.hand_no === S.seen.hand && msg.version < S.seen.version) {
        // an older picture than the events already shown (a sync crossed them): keep ours
        if (msg.room) S.room = msg.room;
        S.syncPending = false;
        renderAll();
        break;
      }
      S.pending = false;
      S.syncPending = false;
      noteSeen(msg, false);
      if (typeof msg.prompt === 'number') S.prompt = msg.prompt; // the decision `legal` belongs to
      if (msg.version === 0) { S.lastDiscardSeen = null; S.eventText = ''; }
      if (msg.version !== undefined) S.version = msg.version;
      if (msg.seat !== undefined) S.seat = msg.seat;
      if (msg.room) S.room = msg.room;
      if ('vote' in msg) S.vote = msg.vote && msg.vote.result === 'open' ? msg.vote : null;
      if (Array.isArray(msg.standings)) S.standings = msg.standings;
      noteHandNo(msg);
      if (S.room && ENDED_STATUSES.has(S.room.status)) S.sessionOver = true;
      if (S.room && S.room.status === 'dissolved') S.dissolved = true;
      if (msg.settlement && S.room && ['between', 'finished', 'dissolved'].includes(S.room.status)) {
        if ('view' in msg) S.view = msg.view;
        if ('legal' in msg) S.legal = Array.isArray(msg.legal) ? msg.legal : [];
        if ('deadline' in msg) S.deadline = msg.deadline;
        S.endedSeen = false;
        onHandEnd(msg.settlement, S.room.totals, msg);
        break;
      }
      if (S.sessionOver && S.dissolved && !msg.settlement) {
        // dissolved during a hand: no settlement, only the final standings
        S.settlement = null;
        if (!S.endedSeen) { S.settlementOpen = true; S.endedSeen = true; }
      }
      applyView(msg);
      break;
    case 'event':
      if (!isNewer(msg)) break; // already covered by a snapshot (or a duplicate)
      if (missedBefore(msg)) requestSync();
      noteSeen(msg, true);
      S.pending = false;
      if (typeof msg.prompt === 'number') S.prompt = msg.prompt;
      if (msg.version !== undefined) S.version = msg.version;
      S.lastEvent = msg.event || null;
      if (msg.event && msg.event.type === 'discard') {
        S.lastDiscardSeen = { seat: msg.event.seat, tile: msg.event.tile };
      }
      if (msg.event) noteEvent(msg.event);
      noteHandNo(msg);
      applyView(msg);
      break;
    case 'hand_end':
      if (!isNewer(msg)) break;
      if (missedBefore(msg)) requestSync();
      noteSeen(msg, true);
      S.pending = false;
      if (msg.version !== undefined) S.version = msg.version;
      noteHandNo(msg);
      if (msg.next_hand === null) S.sessionOver = true;
      onHandEnd(msg.settlement, msg.totals, msg);
      break;
    case 'session_end':
      S.pending = false;
      S.sessionOver = true;
      S.legal = [];
      S.deadline = null;
      if (Array.isArray(msg.standings)) S.standings = msg.standings;
      if (Array.isArray(msg.totals)) {
        S.room = { ...(S.room || {}), totals: msg.totals };
        if (S.settlement) S.settlement.totals = msg.totals;
      }
      if (msg.dissolved) {
        S.dissolved = true;
        S.vote = null;
        S.voteResult = null; // the standings say it
        S.confirmDissolve = false;
        S.room = { ...(S.room || {}), status: 'dissolved' };
        // a hand in progress is not settled: only the standings
        if (S.view && S.view.phase !== 'ended') S.settlement = null;
        S.settlementOpen = true;
        S.endedSeen = true;
      }
      renderAll();
      refreshRoom();
      break;
    case 'dissolve_vote':
      if (msg.result === 'open') {
        if (!S.vote) S.voteSent = false; // a new vote
        S.vote = msg;
        S.voteResult = null;
        S.confirmDissolve = false;
      } else {
        S.vote = null;
        S.voteSent = false;
        S.voteResult = { result: msg.result, votes: msg.votes || [], at: Date.now() };
      }
      renderAll();
      break;
    case 'auto':
      S.autoSeats = Array.isArray(msg.auto) ? msg.auto : [];
      renderAll();
      break;
    case 'ready':
      S.readySeats = Array.isArray(msg.ready) ? msg.ready : [];
      renderSettlement();
      break;
    case 'room':
      if (msg.room) S.room = msg.room;
      if (S.room && ENDED_STATUSES.has(S.room.status)) S.sessionOver = true;
      renderAll();
      break;
    case 'pong':
      break;
    case 'error':
      S.pending = false;
      S.lastError = msg.code || null;
      if (msg.code === 'replaced') break; // the close (4409) follows
      if (msg.code === 'stale_prompt') {
        // the decision moved on before our answer landed: nothing to alarm anyone about,
        // just show the latest state again (it is already here, or on its way)
        S.staleCount += 1;
        renderAll();
        break;
      }
      if (msg.code === 'no_hand' || msg.code === 'already_voted' || msg.code === 'no_vote') {
        S.voteSent = false;
        renderAll();
        break;
      }
      toast(errorMessage(msg.code, { code: S.code || '' }));
      $('#toast').dataset.code = msg.code || '';
      if (msg.code === 'bad_token') store.clearSeat(S.code);
      renderAll();
      break;
    default:
      break;
  }
}

function noteHandNo(msg) {
  if (typeof msg.hand_no === 'number') S.room = { ...(S.room || {}), hand_no: msg.hand_no };
}

function applyView(msg) {
  if ('view' in msg) S.view = msg.view;
  if ('legal' in msg) S.legal = Array.isArray(msg.legal) ? msg.legal : [];
  if ('deadline' in msg) S.deadline = msg.deadline;
  const v = S.view;
  if (v && v.phase === 'ended') {
    if (v.settlement && !S.endedSeen) {
      onHandEnd(v.settlement, null, {});
      return;
    }
  } else if (v && v.phase && !S.sessionOver) {
    // a hand is in progress: a settlement still open belongs to the previous hand
    if (S.endedSeen) {
      S.endedSeen = false;
      S.settlementOpen = false;
      S.readySent = false;
      S.baoTing = false;
    }
  }
  renderAll();
}

function noteEvent(ev) {
  const who = seatName(ev.seat);
  const tn = ev.tile ? tileName(ev.tile) : '';
  let text = '';
  switch (ev.type) {
    case 'pong': text = `${who} ${t('act_pong')} ${tn}`; break;
    case 'chow': text = `${who} ${t('act_chow')} ${(ev.tiles || []).map(tileName).join('')}`; break;
    case 'flower': text = `${who} ${t('bu_hua')} ${tn}`; break;
    case 'kong': case 'kong_declared': text = `${who} ${t('act_kong')} ${tn}`; break;
    case 'win': {
      const ws = (ev.winners || []).map(seatName).join(', ');
      text = `${ws} ${t('act_win')} ${tn}${ev.kind && WIN_KINDS[ev.kind] ? ' · ' + WIN_KINDS[ev.kind] : ''}`;
      break;
    }
    case 'discard': if (ev.bao_ting) text = `${who} ${t('bao_ting')}`; else return; break;
    case 'huang_zhuang': text = t('result_huang'); break;
    default: return;
  }
  S.eventText = text;
}

function onHandEnd(settlement, tots, msg) {
  if (Array.isArray(tots)) S.room = { ...(S.room || {}), totals: tots };
  const handNo = S.room ? S.room.hand_no : null;
  const already = S.endedSeen && S.settlement;
  if (msg && 'deadline' in msg) S.deadline = msg.deadline;
  S.settlement = {
    settlement: settlement || (already ? S.settlement.settlement : {}),
    totals: Array.isArray(tots) ? tots : null,
    handNo,
    msg,
  };
  if (!already) {
    S.settlementOpen = true;
    S.readySent = false;
  }
  S.endedSeen = true;
  if (msg && (msg.session_over || msg.final || msg.finished || msg.game_over)) S.sessionOver = true;
  const totalHands = (S.room && ((S.room.options && S.room.options.hands) || S.room.hands)) || null;
  if (totalHands && typeof handNo === 'number' && handNo >= totalHands) S.sessionOver = true;
  renderAll();
  refreshRoom();
}

// ------------------------------------------------------------------ actions
function send(action) {
  if (!S.socket || S.pending) return;
  // each prompt is answered at most once, with its number
  if (S.prompt !== null && S.answeredPrompt === S.prompt) return;
  if (!S.socket.sendAction(action, S.prompt)) {
    toast(t('conn_reconnecting'));
    return;
  }
  S.answeredPrompt = S.prompt;
  S.pending = true;
  renderActions();
  renderHand();
}

function legalOf(kind) { return S.legal.filter((a) => a && a.kind === kind); }

/** A hand tile clicked. A mouse click (or a key) discards at once; a tap on a touch screen
 *  first selects (raises) the tile, and a second tap on it (or 打出) discards: no misclicks. */
function onHandTileClick(tile, index, touch) {
  if (S.pending) return;
  const options = legalOf('discard').filter((a) => a.tile === tile);
  if (!options.length) return;
  const sel = S.selected;
  if (touch && !(sel && sel.tile === tile && sel.index === index)) {
    S.selected = { tile, index };
    renderActions();
    renderHand();
    return;
  }
  discardTile(tile);
}

function discardTile(tile) {
  const options = legalOf('discard').filter((a) => a.tile === tile);
  if (S.pending || !options.length) return;
  S.selected = null;
  let act;
  if (S.baoTing) act = options.find((a) => a.bao_ting === true);
  if (!act) act = options.find((a) => !a.bao_ting) || options[0];
  S.baoTing = false;
  send(act);
}

// ------------------------------------------------------------------ rendering
function renderAll() {
  if (!S.code) return;
  renderRoomInfo();
  const v = S.view;
  $('#table').hidden = !v;
  // The waiting panel stays until the first hand is dealt.
  $('#room-info').hidden = !!v;
  if (v) {
    renderStatus();
    renderOpponents();
    renderCenter();
    renderMe();
  }
  renderSettlement();
  renderVote();
  tick();
}

function renderRoomInfo() {
  const r = S.room;
  $('#room-options').textContent = r ? optionsSummary(r.options, r.game) : '';
  document.title = r && r.game === 'jintan' ? t('game_jintan') : t('title');
  $('#home-link').textContent = r && r.game === 'jintan' ? t('game_jintan') : t('title');
  const list = $('#seat-list');
  list.replaceChildren();
  const n = (r && r.options && r.options.players) || nPlayers();
  const seats = (r && r.seats) || [];
  let empty = 0;
  for (let i = 0; i < n; i++) {
    const info = seats.find((x) => x && x.seat === i);
    const li = h('li', { dataset: { seat: String(i) }, class: info ? 'taken' : 'empty' });
    if (info) {
      li.append(h('span', { class: 'seat-no', text: `${i + 1}` }), h('b', { text: info.name || '' }));
      if (info.bot) li.append(h('span', { class: 'badge', text: t('bot') }));
      if (i === S.seat) li.append(h('span', { class: 'badge me', text: t('you') }));
      if (!info.bot) li.append(h('span', { class: `dot ${info.connected ? 'on' : 'off'}` }));
    } else {
      empty++;
      li.append(h('span', { class: 'seat-no', text: `${i + 1}` }), h('i', { class: 'muted', text: t('empty_seat') }));
    }
    list.append(li);
  }
  const btn = $('#add-bots');
  btn.dataset.empty = String(r ? empty : n - 1);
  btn.disabled = !S.token || (!!r && empty === 0); // bots need a seated player's token
}

function renderStatus() {
  const v = S.view;
  const r = S.room || {};
  const total = (r.options && r.options.hands) || r.hands;
  const handNo = r.hand_no;
  $('#hand-no').textContent = handNo !== undefined && handNo !== null
    ? t('hand_no', { n: handNo, m: total || '?' }) : '';
  const wc = $('#wall-count');
  wc.dataset.count = String(v.wall_count ?? '');
  wc.textContent = `${t('wall')} ${v.wall_count ?? '-'}`;
  const di = $('#dealer-info');
  const streak = v.dealer_streak ?? r.dealer_streak;
  di.textContent = `${t('dealer')}: ${seatName(v.dealer)}${streak > 1 ? ' ' + t('streak', { n: streak }) : ''}`;
  di.dataset.dealer = String(v.dealer);
  $('#last-settlement-btn').hidden = !(S.settlement && !S.settlementOpen);
  $('#dissolve-btn').hidden = !canProposeDissolve();
  const ss = $('#session-state');
  ss.textContent = S.sessionOver ? (S.dissolved ? t('session_dissolved') : t('session_over')) : '';
  ss.dataset.state = S.sessionOver ? (S.dissolved ? 'dissolved' : 'finished') : '';
}

/** A seat may propose to dissolve while the session runs and no vote is open. */
function canProposeDissolve() {
  const st = S.room && S.room.status;
  return S.seat !== null && S.seat !== undefined && !S.sessionOver && !S.vote
    && (st === 'playing' || st === 'between') && S.conn === 'connected';
}

function seatView(i) {
  const v = S.view;
  return (v && Array.isArray(v.seats) && v.seats.find((x) => x && x.seat === i)) || (v && v.seats && v.seats[i]) || {};
}

function actingSeats() {
  const v = S.view;
  if (!v || S.sessionOver) return [];
  if (v.phase === 'turn') return [v.turn];
  if (v.phase === 'ding_que') {
    return (v.seats || []).filter((s) => !s.ding_que && !s.ding_que_chosen).map((s) => s.seat);
  }
  if (v.phase === 'claim' || v.phase === 'rob') {
    if (Array.isArray(v.claimants)) return v.claimants;
    return S.legal.length && S.seat !== null ? [S.seat] : [];
  }
  return [];
}

function isAuto(i, sv) {
  if (sv && sv.auto) return true;
  if (S.autoSeats.includes(i)) return true;
  const info = S.room && S.room.seats ? S.room.seats.find((x) => x && x.seat === i) : null;
  return !!(info && info.auto);
}

function seatHead(i, sv) {
  const v = S.view;
  const head = h('div', { class: 'seat-head' });
  const info = S.room && S.room.seats ? S.room.seats.find((x) => x && x.seat === i) : null;
  head.append(h('b', { class: 'seat-name', text: seatName(i) }));
  const rel = relLabel(i);
  if (rel && i !== S.seat) head.append(h('span', { class: 'muted rel', text: rel }));
  if (v && v.dealer === i) {
    const streak = v.dealer_streak || 1;
    head.append(h('span', { class: 'badge dealer', dataset: { dealer: 'true' }, text: t('dealer') + (streak > 1 ? t('streak', { n: streak }) : '') }));
  }
  if (sv.bao_ting) head.append(h('span', { class: 'badge baoting', dataset: { baoTing: 'true' }, text: t('bao_ting') }));
  if (sv.ding_que) head.append(h('span', { class: `badge que suit-${sv.ding_que}`, dataset: { que: sv.ding_que }, text: `${t('que')}${suitChar(sv.ding_que)}` }));
  if (isAuto(i, sv)) head.append(h('span', { class: 'badge auto', dataset: { auto: 'true' }, text: t('auto') }));
  if (info && info.bot) head.append(h('span', { class: 'badge', text: t('bot') }));
  if (info && !info.bot) head.append(h('span', { class: `dot ${info.connected ? 'on' : 'off'}`, title: info.connected ? 'online' : 'offline' }));
  const tot = totals()[i];
  head.append(h('span', { class: 'score', dataset: { score: String(tot ?? 0) }, text: `${tot ?? 0}${t('score')}` }));
  head.append(h('span', { class: 'seat-countdown', dataset: { seat: String(i) } }));
  return head;
}

/** A seat's flowers, laid open (Jintan, jintan.md §J2). */
function flowersEl(sv) {
  const fl = Array.isArray(sv.flowers) ? sv.flowers : [];
  const box = h('div', { class: 'flowers', dataset: { count: String(fl.length) } });
  if (!fl.length) { box.hidden = true; return box; }
  box.append(h('span', { class: 'label', text: t('flowers') }));
  for (const f of fl) box.append(tileEl(f, { size: 'xs', classes: ['flower'] }));
  return box;
}

function meldsEl(sv) {
  const box = h('div', { class: 'melds' });
  for (const m of sv.melds || []) {
    const grp = h('span', { class: `meld meld-${m.kind || ''}`, dataset: { kind: m.kind || '' } });
    const tiles = m.tiles || [];
    tiles.forEach((tl) => grp.append(tileEl(tl, { size: 'sm' })));
    if (m.from !== undefined && m.from !== null) grp.title = `← ${seatName(m.from)}`;
    box.append(grp);
  }
  return box;
}

function lastDiscard() {
  const v = S.view;
  if (v && v.last_discard) return v.last_discard;
  return S.lastDiscardSeen;
}

function riverEl(i, sv) {
  const v = S.view;
  const box = h('div', { class: 'river', dataset: { seat: String(i) } });
  const ds = sv.discards || [];
  const last = lastDiscard();
  const claimed = new Set(Array.isArray(sv.claimed) ? sv.claimed : []);
  ds.forEach((d, k) => {
    const tl = typeof d === 'string' ? d : d && d.tile;
    const isLast = last && last.seat === i && k === ds.length - 1 && last.tile === tl && !claimed.has(k);
    const el = tileEl(tl, { size: 'sm', classes: isLast ? ['last-discard'] : [] });
    if (isLast) el.dataset.last = 'true';
    if (claimed.has(k)) el.classList.add('claimed');
    if (d && typeof d === 'object') {
      if (d.claimed) el.classList.add('claimed');
      if (d.bao_ting) el.classList.add('bao-ting-discard');
    }
    box.append(el);
  });
  return box;
}

function renderOpponents() {
  const v = S.view;
  const box = $('#opponents');
  box.replaceChildren();
  const n = v.players || (v.seats ? v.seats.length : 4);
  const order = [];
  const me = S.seat;
  for (let k = 1; k <= n; k++) {
    const i = me === null || me === undefined ? k - 1 : (me + k) % n;
    if (i === me) continue;
    order.push(i);
  }
  box.dataset.count = String(order.length);
  $('#board').dataset.players = String(n);
  const acting = actingSeats();
  for (const i of order) {
    const sv = seatView(i);
    const pos = seatPos(i);
    const panel = h('section', { class: `seat-panel opponent pos-${pos}`, dataset: { seat: String(i), pos } });
    if (acting.includes(i)) panel.classList.add('acting');
    panel.append(seatHead(i, sv));
    const cc = sv.concealed_count ?? 0;
    const hidden = h('div', { class: 'concealed', dataset: { count: String(cc) } });
    const backs = h('span', { class: 'backs' });
    for (let k = 0; k < Math.min(cc, 14); k++) backs.append(h('span', { class: 'back-mini' }));
    hidden.append(backs, h('span', { class: 'count', text: `×${cc}` }));
    const row = h('div', { class: 'opp-row' }, hidden, meldsEl(sv));
    panel.append(row, flowersEl(sv), riverEl(i, sv));
    box.append(panel);
  }
}

function renderCenter() {
  const v = S.view;
  const ld = $('#last-discard');
  ld.replaceChildren();
  const last = lastDiscard();
  if (v.robbing) {
    ld.append(h('span', { class: 'muted', text: t('robbing') }), tileEl(v.robbing, { size: 'md', classes: ['center-tile'] }));
  } else if (last && last.tile && v.phase !== 'ended') {
    ld.append(
      h('span', { class: 'muted', text: `${seatName(last.seat)} ${t('act_discard')}` }),
      tileEl(last.tile, { size: 'md', classes: ['center-tile'] }),
    );
  }
  const evl = $('#event-line');
  evl.textContent = v.phase === 'ended' ? '' : (S.eventText || '');
  const p = $('#prompt');
  let text = '';
  const kinds = new Set(S.legal.map((a) => a.kind));
  if (v.phase === 'ended') text = t('settlement');
  else if (kinds.has('ding_que')) text = t('choose_que');
  else if (kinds.has('discard')) text = t('your_turn');
  else if (kinds.size) text = '';
  else if (S.seat === null || S.seat === undefined) text = t('spectator');
  // a claim window opens after every discard, for everyone: with nothing to claim, say
  // nothing (no "waiting for claims"), the discard is in the river with its mark
  else if (v.phase === 'claim' || v.phase === 'rob') text = '';
  else if (S.sessionOver) text = '';
  else text = t('waiting_others');
  p.textContent = text;
  p.dataset.phase = v.phase || '';
}

function renderMe() {
  const v = S.view;
  const me = $('#me');
  const spectator = S.seat === null || S.seat === undefined;
  me.hidden = spectator;
  if (spectator) return;
  const sv = seatView(S.seat);
  me.dataset.seat = String(S.seat);
  me.classList.toggle('acting', actingSeats().includes(S.seat));
  const myHead = Object.assign(seatHead(S.seat, sv), { id: 'my-head' });
  if (v.phase !== 'ended' && !S.sessionOver) {
    const on = isAuto(S.seat, sv);
    myHead.insertBefore(h('button', {
      type: 'button', id: 'auto-toggle', class: `ghost small ${on ? 'on' : ''}`,
      dataset: { action: on ? 'auto_off' : 'auto_on' }, 'aria-pressed': on ? 'true' : 'false',
      onclick: () => { if (S.socket) S.socket.send({ type: 'auto', on: !on }); },
    }, on ? t('auto_off') : t('auto_on')), myHead.querySelector('.score'));
  }
  $('#my-head').replaceWith(myHead);
  $('#my-river').replaceWith(Object.assign(riverEl(S.seat, sv), { id: 'my-river' }));
  $('#my-melds').replaceWith(Object.assign(meldsEl(sv), { id: 'my-melds' }));
  $('#my-flowers').replaceWith(Object.assign(flowersEl(sv), { id: 'my-flowers' }));
  const waits = $('#waits');
  waits.replaceChildren();
  if (Array.isArray(v.waits) && v.waits.length) {
    waits.hidden = false;
    waits.append(h('span', { class: 'waits-label', text: t('waits') }));
    for (const w of v.waits) {
      const tile = typeof w === 'string' ? w : w.tile;
      const unseen = typeof w === 'object' ? w.unseen : undefined;
      waits.append(h('span', { class: 'wait', dataset: { unseen: String(unseen ?? '') } },
        tileEl(tile, { size: 'sm' }),
        unseen !== undefined ? h('small', { text: t('unseen', { n: unseen }) }) : null));
    }
  } else {
    waits.hidden = true;
  }
  renderActions();
  renderHand();
}

function handTiles() {
  const v = S.view;
  const hand = Array.isArray(v.hand) ? [...v.hand] : [];
  let drawn = v.drawn || null;
  if (drawn) {
    if (hand.length % 3 === 2) {
      const k = hand.lastIndexOf(drawn);
      if (k >= 0) hand.splice(k, 1);
      else drawn = null;
    }
  }
  const sv = seatView(S.seat);
  return { main: sortTiles(hand, sv.ding_que), drawn };
}

/** Drop a tapped selection once the turn is over or the hand changed under it. */
function checkSelection() {
  const sel = S.selected;
  if (!sel) return;
  const { main, drawn } = S.view ? handTiles() : { main: [], drawn: null };
  const all = [...main, ...(drawn ? [drawn] : [])];
  if (S.pending || !legalOf('discard').some((a) => a.tile === sel.tile) || all[sel.index] !== sel.tile) {
    S.selected = null;
  }
}

function renderHand() {
  const v = S.view;
  const box = $('#hand');
  box.replaceChildren();
  if (!v) return;
  const { main, drawn } = handTiles();
  const discardable = new Set(legalOf('discard').map((a) => a.tile));
  const sv = seatView(S.seat);
  checkSelection();
  const mk = (tile, isDrawn, idx) => {
    const el = tileEl(tile, { tag: 'button', size: 'lg', classes: ['hand-tile'] });
    el.dataset.index = String(idx);
    if (isDrawn) { el.classList.add('drawn'); el.dataset.drawn = 'true'; }
    if (sv.ding_que && suitOf(tile) === sv.ding_que) el.classList.add('void');
    if (discardable.has(tile) && !S.pending) {
      el.classList.add('playable');
      if (S.baoTing && !legalOf('discard').some((a) => a.tile === tile && a.bao_ting)) el.classList.add('no-baoting');
    } else {
      el.setAttribute('aria-disabled', 'true');
    }
    if (S.selected && S.selected.index === idx && S.selected.tile === tile) {
      el.classList.add('selected');
      el.dataset.selected = 'true';
    }
    // the pointer that made the click: a touch tap selects first, a mouse click discards
    let touch = false;
    el.addEventListener('pointerdown', (e) => { touch = e.pointerType === 'touch'; });
    el.addEventListener('click', () => { const tap = touch; touch = false; onHandTileClick(tile, idx, tap); });
    return el;
  };
  const mainRow = h('div', { class: 'hand-main' });
  main.forEach((tl, k) => mainRow.append(mk(tl, false, k)));
  box.append(mainRow);
  if (drawn) box.append(h('div', { class: 'hand-drawn' }, mk(drawn, true, main.length)));
  box.dataset.count = String(main.length + (drawn ? 1 : 0));
  box.classList.toggle('can-discard', discardable.size > 0 && !S.pending);
}

function actionLabel(a) {
  return t(`act_${a.kind}`) || a.kind;
}

function renderActions() {
  const box = $('#actions');
  box.replaceChildren();
  const legal = S.legal || [];
  // 报听 toggle
  if (legal.some((a) => a.kind === 'discard' && a.bao_ting === true)) {
    const b = h('button', {
      type: 'button', id: 'bao-ting-toggle', class: `toggle ${S.baoTing ? 'on' : ''}`,
      dataset: { action: 'bao_ting' }, 'aria-pressed': S.baoTing ? 'true' : 'false',
      onclick: () => { S.baoTing = !S.baoTing; renderActions(); renderHand(); },
    }, t('bao_ting'));
    box.append(b);
  }
  // 定缺
  const dq = legalOf('ding_que');
  if (dq.length) {
    const suits = dq.some((a) => a.suit) ? dq : ['m', 'p', 's'].map((s) => ({ ...dq[0], suit: s }));
    box.append(h('span', { class: 'label', text: t('ding_que') }));
    for (const a of suits) {
      box.append(h('button', {
        type: 'button', class: `act act-que suit-${a.suit}`, dataset: { action: 'ding_que', suit: a.suit },
        disabled: S.pending, onclick: () => send(a),
      }, suitChar(a.suit)));
    }
  }
  // a tile selected by a tap: 打出 discards it (as a second tap on it does)
  checkSelection();
  if (S.selected) {
    const tile = S.selected.tile;
    box.append(h('button', {
      type: 'button', id: 'discard-btn', class: 'act act-discard', dataset: { action: 'discard_selected', actionTile: tile },
      onclick: () => discardTile(tile),
    }, t('act_discard'), tileEl(tile, { size: 'xs' })));
  }
  const claims = legal.filter((a) => a && a.kind !== 'discard' && a.kind !== 'ding_que');
  claims.sort((a, b) => {
    const ia = CLAIM_ORDER.indexOf(a.kind); const ib = CLAIM_ORDER.indexOf(b.kind);
    return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib);
  });
  for (const a of claims) {
    const btn = h('button', {
      type: 'button', class: `act act-${a.kind}`, dataset: { action: a.kind },
      disabled: S.pending, onclick: () => send(a),
    }, actionLabel(a));
    const claimTile = S.view && (S.view.robbing || (S.view.last_discard && S.view.last_discard.tile));
    const shown = a.tile || (['win', 'pong', 'kong'].includes(a.kind) && S.view && S.view.phase !== 'turn'
      ? claimTile : null);
    if (a.tile) btn.dataset.actionTile = a.tile;
    if (a.kind === 'chow' && Array.isArray(a.tiles)) {
      // one button per run: the two tiles from hand and the claimed one, in order
      btn.dataset.actionTiles = a.tiles.join('');
      for (const tl of sortTiles([...a.tiles, claimTile].filter(Boolean))) {
        btn.append(tileEl(tl, { size: 'xs', classes: tl === claimTile ? ['claimed-tile'] : [] }));
      }
    } else if (shown) btn.append(tileEl(shown, { size: 'xs' }));
    box.append(btn);
  }
  if (claims.length || dq.length) {
    // the answer's countdown next to the buttons (the status bar's is far away on a phone)
    box.append(h('span', { id: 'claim-countdown', class: 'countdown-chip', dataset: { seconds: '' } }));
  }
  box.hidden = !box.children.length;
}

// ------------------------------------------------------------------ settlement
function paymentsOf(s) {
  const raw = s.payments || [];
  return raw.map((p) => (Array.isArray(p)
    ? { from: p[0], to: p[1], points: p[2], reason: p[3] }
    : { from: p.from ?? p.payer, to: p.to ?? p.payee, points: p.points ?? p.amount, reason: p.reason, detail: p.detail }));
}

const DOU_KINDS = { men_dou: '闷豆', ming_dou: '明豆', zhuan_wan_dou: '转弯豆' };

const CHICKEN_OPTIONS = ['wu_gu_ji', 'ben_ji', 'xing_qi_ji', 'chui_feng_ji'];
// Why a tile is a chicken (the settlement's `kind` / `kinds`, spec §9.3, §9.6).
const CHICKEN_KINDS = { yao_ji: '幺鸡', wu_gu_ji: '乌骨鸡', fan_pai_ji: '翻牌鸡', ben_ji: '本鸡', xing_qi_ji: '星期鸡' };
const CHICKEN_REASONS = new Set(['ji', 'chong_feng_ji', 'ze_ren_ji']);

/** The chicken a `ji` / `chong_feng_ji` / `ze_ren_ji` payment is for: 幺鸡 (金鸡 when
 * golden), 乌骨鸡 (金乌骨), a turned 翻牌鸡 / 摇摆鸡, 本鸡, 星期鸡; 包鸡 when a seat that is not
 * ready pays for its open chicken. */
function chickenKind(d, reason) {
  const wuGu = d.kind === 'wu_gu_ji' || (d.kind === undefined && d.tile === '8p');
  if (reason !== 'ji') return wuGu ? '乌骨' : '';
  let text = d.jin ? (wuGu ? '金乌骨' : '金鸡') : (CHICKEN_KINDS[d.kind] || (d.tile === '1s' ? '幺鸡' : '翻牌鸡'));
  const o = S.room && S.room.options;
  if (d.kind === 'fan_pai_ji' && o && o.yao_bai_ji) text = '摇摆鸡';
  return d.bao_ji ? `包鸡 · ${text}` : text;
}

function detailEl(d, reason) {
  if (!d || typeof d !== 'object') return null;
  const box = h('span', { class: 'detail' });
  if (CHICKEN_REASONS.has(reason)) {
    const kind = chickenKind(d, reason);
    if (kind) box.append(h('small', { class: 'ji-kind', text: kind }));
    if (reason !== 'ji' && d.bao_ji) box.append(h('small', { class: 'ji-kind', text: '包鸡' }));
  } else if (d.kind) box.append(h('small', { text: DOU_KINDS[d.kind] || HAND_KIND_FALLBACK(d.kind) }));
  if (typeof d.tile === 'string') box.append(tileEl(d.tile, { size: 'xs' }));
  if (d.jin && reason !== 'ji') box.append(h('small', { class: 'badge', text: '金' }));
  if (d.suit) box.append(h('small', { text: suitChar(d.suit) }));
  if (typeof d.hua_total === 'number') box.append(jintanWinEl(d));
  return box.children.length ? box : null;
}

/** A Jintan win line's facts (jintan.md §J5-§J6): 花 by item, 番 by pattern, the formula and
 * whether the cap (封顶 ×4) applied. */
function jintanWinEl(d) {
  const box = h('span', { class: 'jt-win' });
  const hua = (d.hua || []).map((x) => `${x.what === 'flower' ? '' : (HUA_ITEMS[x.what] || x.what)}${tileName(x.tile)} ${x.hua}`);
  box.append(h('small', { class: 'hua', dataset: { hua: String(d.hua_total) }, text: `${t('hua')} ${d.hua_total}${hua.length ? ` (${hua.join(', ')})` : ''}` }));
  const fans = (d.fan || []).map((f) => FAN_NAMES[f] || f);
  box.append(h('small', { class: 'fan', dataset: { fan: String(d.fan_total) }, text: `${t('fan')} ${d.fan_total}${fans.length ? ` (${fans.join(' ')})` : ''}` }));
  const unit = d.base + d.hua_total * d.flower_value;
  const mult = 2 ** Math.min(d.fan_total, 2);
  box.append(h('small', { class: 'formula', text: `(${d.base}+${d.hua_total}×${d.flower_value})×${mult}` }));
  if (d.capped) box.append(h('small', { class: 'badge capped', text: t('capped') }));
  box.dataset.unit = String(unit);
  return box;
}

const FAN_NAMES = { hun_yi_se: '混一色', dui_dui_hu: '对对胡', gang_kai: '杠开', du_diao: '独吊', qing_yi_se: '清一色', qi_dui: '七对' };
const HUA_ITEMS = {
  flower: '', honour_pong: '碰', honour_concealed_triplet: '暗刻', honour_exposed_kong: '明杠',
  honour_concealed_kong: '暗杠', exposed_kong: '明杠', concealed_kong: '暗杠',
};

function HAND_KIND_FALLBACK(k) { return WIN_KINDS[k] || handTypeText(k); }

function winnersOf(s) {
  if (Array.isArray(s.winners)) return s.winners;
  if (Array.isArray(s.wins)) return s.wins.map((w) => w.seat ?? w.winner);
  return [];
}

function handTypeOf(s, seat) {
  if (s.hand_types) {
    const ht = s.hand_types[seat] ?? s.hand_types[String(seat)];
    if (ht) return ht;
  }
  if (Array.isArray(s.wins)) {
    const w = s.wins.find((x) => (x.seat ?? x.winner) === seat);
    if (w) return w.hand_type || w.type;
  }
  return null;
}

function winExtrasOf(s, seat) {
  const out = [];
  if (Array.isArray(s.wins)) {
    const w = s.wins.find((x) => (x.seat ?? x.winner) === seat);
    if (w) {
      for (const k of ['how', 'kind', 'method', 'win_kind']) if (w[k] && WIN_KINDS[w[k]]) out.push(WIN_KINDS[w[k]]);
      for (const k of ['extras', 'flags']) if (Array.isArray(w[k])) w[k].forEach((x) => out.push(WIN_KINDS[x] || x));
    }
  }
  for (const k of ['win_kind', 'how']) if (typeof s[k] === 'string' && WIN_KINDS[s[k]]) out.push(WIN_KINDS[s[k]]);
  if (s.self_draw === true || s.zi_mo === true) out.push('自摸');
  return [...new Set(out)];
}

/** The final standings (best first): the server's `standings`, else sorted totals. */
function finalStandings(tots) {
  if (Array.isArray(S.standings) && S.standings.length) return S.standings;
  const n = nPlayers();
  const order = [...Array(n).keys()].sort((a, b) => (tots[b] ?? 0) - (tots[a] ?? 0));
  let rank = 0; let prev = null;
  return order.map((i, k) => {
    const total = tots[i] ?? 0;
    if (total !== prev) { rank = k + 1; prev = total; }
    return { seat: i, name: null, total, rank };
  });
}

function standingsEl(tots) {
  const title = S.dissolved ? t('session_dissolved') : t('session_over');
  const fs = h('div', { id: 'final-standings', dataset: { dissolved: S.dissolved ? 'true' : 'false' } },
    h('h3', {}, `${title} · ${t('final_standings')}`,
      S.dissolved ? h('span', { class: 'badge dissolved', text: t('dissolved') }) : null));
  const ol = h('ol');
  for (const r of finalStandings(tots)) {
    ol.append(h('li', { dataset: { seat: String(r.seat), total: String(r.total), rank: String(r.rank ?? '') } },
      h('span', { class: 'rank', text: `${r.rank ?? ''}` }), h('b', { text: seatName(r.seat) }),
      h('span', { class: 'num', text: fmtPts(r.total) })));
  }
  fs.append(ol);
  return fs;
}

function renderSettlement() {
  const overlay = $('#settlement-overlay');
  const st = S.settlement;
  const standingsOnly = !st && S.sessionOver && S.dissolved;
  const wasHidden = overlay.hidden;
  overlay.hidden = !((st || standingsOnly) && S.settlementOpen);
  $('#settle-dissolve-btn').hidden = !canProposeDissolve();
  if (!(st || standingsOnly) || !S.settlementOpen) return;
  const body = $('#settlement-body');
  // A settlement opens at its top (title, totals); a re-render while it is open (others
  // getting ready) leaves the reader where they are.
  const key = st ? `hand-${st.handNo}` : 'standings';
  const opened = wasHidden || S.settlementShown !== key;
  S.settlementShown = key;
  if (opened) requestAnimationFrame(() => { body.scrollTop = 0; overlay.scrollTop = 0; });
  body.replaceChildren();
  const n = nPlayers();
  if (standingsOnly) {
    // dissolved during a hand: nothing was settled, only the session's standings
    body.append(h('h2', {}, t('final_standings')), standingsEl(totals()));
    $('#ready-btn').hidden = true;
    $('#ready-state').hidden = true;
    return;
  }
  const s = st.settlement || {};
  const result = s.result || (winnersOf(s).length ? 'win' : 'huang_zhuang');
  body.append(h('h2', {}, t('settlement'), ' ',
    h('span', { id: 'settle-result', class: `result ${result}`, dataset: { result }, text: result === 'win' ? t('result_win') : t('result_huang') })));

  const winners = winnersOf(s);
  const pays = paymentsOf(s);
  // per-seat deltas and totals first, as the apps show them
  const deltas = Array.isArray(s.deltas) ? s.deltas : (() => {
    const d = new Array(n).fill(0);
    for (const p of pays) { d[p.from] -= p.points; d[p.to] += p.points; }
    return d;
  })();
  const tots = Array.isArray(st.totals) ? st.totals : totals();
  const dt = h('table', { id: 'settle-totals', class: 'grid' },
    h('thead', {}, h('tr', {}, h('th', { text: t('seat') }), h('th', { text: t('delta') }), h('th', { text: t('total') }))));
  const tb2 = h('tbody');
  for (let i = 0; i < n; i++) {
    const d = deltas[i] ?? 0;
    const tot = tots[i];
    tb2.append(h('tr', { class: `settle-row ${winners.includes(i) ? 'winner-row' : ''}`, id: `settle-row-${i}`, dataset: { seat: String(i), delta: String(d), total: String(tot ?? '') } },
      h('td', { text: seatName(i) }),
      h('td', { class: `num delta ${d > 0 ? 'pos' : d < 0 ? 'neg' : ''}`, text: fmtPts(d) }),
      h('td', { class: 'num total', text: tot === undefined ? '' : String(tot) })));
  }
  dt.append(tb2);
  body.append(h('div', { class: 'scroll-x', id: 'settle-totals-box' }, dt));

  // winners
  if (winners.length) {
    const wl = h('div', { id: 'settle-winners', class: 'settle-line' }, h('span', { class: 'label', text: t('winners') }));
    for (const w of winners) {
      const ht = handTypeOf(s, w);
      const extras = winExtrasOf(s, w);
      wl.append(h('span', { class: 'winner', dataset: { seat: String(w), handType: ht || '' } },
        h('b', { text: seatName(w) }), ' ', handTypeText(ht), extras.length ? ` · ${extras.join(' ')}` : ''));
    }
    body.append(wl);
  }

  if (s.loser !== undefined && s.loser !== null && winners.length) {
    body.append(h('div', { class: 'settle-line', id: 'settle-loser' }, h('span', { class: 'label', text: s.win_kind === 'qiang_gang' ? '抢杠' : '点炮' }), seatName(s.loser)));
  }
  if (Array.isArray(s.burned) && s.burned.length) {
    body.append(h('div', { class: 'settle-line' }, h('span', { class: 'label', text: '烧' }), s.burned.map(seatName).join(', ')));
  }
  // turned tile + chickens
  const turned = s.turned ?? s.turned_tile ?? null;
  const chickens = s.chickens || [];
  if (turned || chickens.length) {
    const cl = h('div', { id: 'settle-chickens', class: 'settle-line' });
    cl.append(h('span', { class: 'label', text: t('turned') }));
    cl.append(turned ? tileEl(turned, { size: 'sm', classes: ['turned'] }) : h('span', { class: 'muted', text: '—' }));
    cl.dataset.turned = turned || '';
    cl.append(h('span', { class: 'label', text: t('chickens') }));
    const values = new Map((s.chicken_values || []).map((c) => [c.tile, c]));
    for (const c of chickens) {
      const tile = typeof c === 'string' ? c : c.tile;
      const v = values.get(tile);
      const el = tileEl(tile, { size: 'sm', classes: ['chicken'].concat(v && v.jin ? ['jin'] : []) });
      if (v) el.title = `${(v.kinds || []).map((k) => CHICKEN_KINDS[k] || k).join(' / ')} ×${v.value}`;
      cl.append(el);
      if (v && v.jin) cl.append(h('span', { class: 'badge', text: tile === '8p' ? '金乌骨' : '金鸡' }));
    }
    if (s.chui_feng) cl.append(h('span', { class: 'badge', id: 'settle-chui-feng', text: t('chui_feng_blown') }));
    if (s.weekday && S.room && S.room.options && S.room.options.xing_qi_ji) {
      cl.append(h('span', { class: 'muted', text: t('weekday_n', { n: getLang() === 'zh' ? '一二三四五六日'[s.weekday - 1] : s.weekday }) }));
    }
    body.append(cl);
  }


  // payments, one row each (the ledger's rows)
  const pt = h('table', { id: 'settle-payments', class: 'grid' },
    h('thead', {}, h('tr', {}, h('th', { text: t('from') }), h('th', { text: t('to') }), h('th', { text: t('points') }), h('th', { text: t('reason') }))));
  const tb = h('tbody');
  if (!pays.length) tb.append(h('tr', {}, h('td', { colspan: '4', class: 'muted', text: t('no_payments') })));
  for (const p of pays) {
    tb.append(h('tr', { class: 'payment', dataset: { from: String(p.from), to: String(p.to), points: String(p.points), reason: p.reason || '' } },
      h('td', { text: seatName(p.from) }), h('td', { text: seatName(p.to) }),
      h('td', { class: 'num', text: String(p.points) }), h('td', {}, reasonText(p.reason), detailEl(p.detail, p.reason))));
  }
  pt.append(tb);
  body.append(h('h3', { text: t('payments') }), h('div', { class: 'scroll-x' }, pt));

  // revealed hands
  if (s.hands && typeof s.hands === 'object') {
    const hw = h('details', { id: 'settle-hands' }, h('summary', { text: t('hands_revealed') }));
    const entries = Array.isArray(s.hands) ? s.hands.map((x, i) => [i, x]) : Object.entries(s.hands);
    for (const [i, tiles] of entries) {
      const list = Array.isArray(tiles) ? tiles : (tiles && (tiles.hand || tiles.tiles)) || [];
      hw.append(h('div', { class: 'settle-hand' }, h('span', { class: 'label', text: seatName(Number(i)) }),
        ...sortTiles(list).map((tl) => tileEl(tl, { size: 'xs' }))));
    }
    body.append(hw);
  }

  if (s.next_dealer !== undefined && s.next_dealer !== null && !S.sessionOver) {
    body.append(h('div', { class: 'settle-line muted', text: `${t('next_dealer')}: ${seatName(s.next_dealer)}` }));
  }
  const seed = s.seed ?? (S.view && S.view.seed);
  if (seed) {
    body.append(h('div', { class: 'settle-line seed' }, h('span', { class: 'label', text: t('seed') }), h('code', { id: 'settle-seed', text: String(seed) })));
  }
  const seedHash = s.seed_hash ?? (S.view && S.view.seed_hash);
  if (seedHash) {
    body.append(h('div', { class: 'settle-line seed' }, h('span', { class: 'label', text: t('seed_hash') }), h('code', { text: String(seedHash) })));
  }

  // final standings
  if (S.sessionOver) {
    body.insertBefore(standingsEl(tots), body.children[1] || null); // first thing under the title
  }
  const rb = $('#ready-btn');
  rb.hidden = S.sessionOver || S.seat === null || S.seat === undefined;
  rb.disabled = S.readySent;
  const rs = $('#ready-state');
  rs.hidden = !S.readySent;
  rs.textContent = t('ready_sent');
}

// ------------------------------------------------------------------ dissolve vote
function voteSend(agree) {
  if (S.socket && S.socket.send({ type: 'dissolve', agree })) {
    S.voteSent = true;
    renderVote();
  } else {
    toast(t('conn_reconnecting'));
  }
}

/** The vote dialog: confirm a proposal, the open vote (who agreed, 同意/拒绝, countdown),
 * or the result of the last vote. */
function renderVote() {
  const overlay = $('#vote-overlay');
  const box = $('#vote-dialog');
  const v = S.vote;
  let mode = null;
  if (v && v.result === 'open') mode = 'open';
  else if (S.confirmDissolve) mode = 'confirm';
  else if (S.voteResult) mode = 'result';
  overlay.hidden = !mode;
  box.dataset.mode = mode || '';
  if (!mode) { box.replaceChildren(); return; }
  box.replaceChildren();
  if (mode === 'confirm') {
    box.append(
      h('h2', { id: 'vote-title', text: t('dissolve_title') }),
      h('p', { class: 'vote-text', text: t('dissolve_text') }),
      h('div', { class: 'vote-actions' },
        h('button', { type: 'button', id: 'dissolve-confirm', class: 'primary danger', onclick: () => {
          S.confirmDissolve = false;
          S.voteSent = false;
          voteSend(true);
        } }, t('dissolve_propose')),
        h('button', { type: 'button', id: 'dissolve-cancel', class: 'ghost', onclick: () => {
          S.confirmDissolve = false;
          renderVote();
        } }, t('cancel'))),
    );
    return;
  }
  if (mode === 'open') {
    const votes = Array.isArray(v.votes) ? v.votes : [];
    box.append(h('h2', { id: 'vote-title' }, t('vote_title'),
      h('span', { id: 'vote-countdown', class: 'countdown-chip', dataset: { seconds: '' } })));
    const ul = h('ul', { id: 'vote-list' });
    votes.forEach((x, i) => {
      const state = x === true ? 'agree' : x === false ? 'refuse' : 'pending';
      const label = x === true ? t('vote_agree') : x === false ? t('vote_refuse') : t('vote_pending');
      ul.append(h('li', { class: `vote-${state}`, dataset: { seat: String(i), vote: state } },
        h('b', { text: seatName(i) }), h('span', { class: 'vote-mark', text: `${x === true ? '✓' : x === false ? '✗' : '…'} ${label}` })));
    });
    box.append(ul);
    const mine = S.seat !== null && S.seat !== undefined ? votes[S.seat] : undefined;
    if (mine === null) {
      box.append(h('div', { class: 'vote-actions' },
        h('button', { type: 'button', id: 'vote-agree', class: 'primary', disabled: S.voteSent, onclick: () => voteSend(true) }, t('vote_agree')),
        h('button', { type: 'button', id: 'vote-refuse', class: 'ghost', disabled: S.voteSent, onclick: () => voteSend(false) }, t('vote_refuse'))));
    } else if (S.seat !== null && S.seat !== undefined) {
      box.append(h('p', { class: 'muted', id: 'vote-wait', text: t('vote_wait') }));
    }
    tick();
    return;
  }
  const r = S.voteResult;
  let text;
  if (r.result === 'dissolved') text = t('vote_dissolved');
  else if (r.result === 'refused') {
    const who = (r.votes || []).indexOf(false);
    text = who >= 0 ? t('vote_refused', { name: seatName(who) }) : t('vote_refused_anon');
  } else if (r.result === 'expired') text = t('vote_expired');
  else text = t('vote_finished');
  box.append(
    h('h2', { id: 'vote-title', text: t('vote_title') }),
    h('p', { id: 'vote-result', class: `vote-result ${r.result}`, dataset: { result: r.result }, text }),
    h('div', { class: 'vote-actions' },
      h('button', { type: 'button', id: 'vote-close', class: 'ghost', onclick: () => { S.voteResult = null; renderVote(); } }, t('close'))),
  );
}

/** 重连中… (attempt n, next try in s) while the socket is down. */
function renderConnText() {
  const el = $('#conn-state');
  const info = S.connInfo;
  let text = t(`conn_${S.conn}`);
  if (S.conn === 'reconnecting' && info && info.attempt) {
    const secs = info.retryAt ? Math.max(0, Math.ceil((info.retryAt - Date.now()) / 1000)) : 0;
    text += ` ${t('retry_n', { n: info.attempt })}${secs ? ` · ${secs}s` : ''}`;
  }
  if (el.textContent !== text) el.textContent = text;
}

// ------------------------------------------------------------------ countdown
function tick() {
  if (S.conn === 'reconnecting') renderConnText();
  const vc = $('#vote-countdown');
  if (vc && S.vote && S.vote.deadline) {
    const vs = Math.max(0, Math.ceil((S.vote.deadline - Date.now()) / 1000));
    vc.textContent = `${vs}s`;
    vc.dataset.seconds = String(vs);
    vc.classList.toggle('urgent', vs <= 10);
  }
  // a refused / expired vote's note goes away by itself
  if (S.voteResult && S.voteResult.result !== 'dissolved' && Date.now() - S.voteResult.at > 6000) {
    S.voteResult = null;
    renderVote();
  }
  const el = $('#countdown');
  if (!el) return;
  document.querySelectorAll('.seat-countdown').forEach((x) => { x.textContent = ''; });
  const rc = $('#ready-countdown');
  if (S.settlementOpen && S.deadline && !S.sessionOver) {
    rc.textContent = `${Math.max(0, Math.ceil((S.deadline - Date.now()) / 1000))}s`;
  } else {
    rc.textContent = '';
  }
  const v = S.view;
  if (!v || !S.deadline || v.phase === 'ended') {
    el.textContent = '';
    el.dataset.seconds = '';
    return;
  }
  const secs = Math.max(0, Math.ceil((S.deadline - Date.now()) / 1000));
  el.dataset.seconds = String(secs);
  el.textContent = `${secs}s`;
  el.classList.toggle('urgent', secs <= 5);
  for (const i of actingSeats()) {
    document.querySelectorAll(`.seat-countdown[data-seat="${i}"]`).forEach((x) => { x.textContent = `${secs}s`; });
  }
  const cc = $('#claim-countdown');
  if (cc) {
    cc.textContent = `${secs}s`;
    cc.dataset.seconds = String(secs);
    cc.classList.toggle('urgent', secs <= 3);
  }
}

// ------------------------------------------------------------------ boot
function bind() {
  $('#create-form').addEventListener('submit', onCreate);
  document.querySelectorAll('input[name="game"]').forEach((el) => el.addEventListener('change', renderGameOptions));
  $('#join-form').addEventListener('submit', onJoin);
  const lz = $('#opt-lian-zhuang');
  const yks = $('#opt-yi-kou-san');
  lz.addEventListener('change', () => { if (lz.checked) yks.checked = false; });
  yks.addEventListener('change', () => { if (yks.checked) lz.checked = false; });
  $('#name').addEventListener('change', () => store.setName($('#name').value.trim()));
  $('#add-bots').addEventListener('click', async () => {
    const btn = $('#add-bots');
    const n = parseInt(btn.dataset.empty || '0', 10) || Math.max(1, nPlayers() - 1);
    btn.disabled = true;
    try {
      await api.addBots(S.code, n, S.token);
    } catch (e) {
      toast(apiErrorText(e));
    }
    await refreshRoom();
  });
  $('#copy-link').addEventListener('click', async () => {
    const inp = $('#share-link');
    try {
      await navigator.clipboard.writeText(inp.value);
      toast(t('copied'), 'info');
    } catch (e) {
      inp.select();
    }
  });
  $('#ready-btn').addEventListener('click', () => {
    if (S.socket && S.socket.send({ type: 'ready' })) {
      S.readySent = true;
      renderSettlement();
    }
  });
  $('#settlement-close').addEventListener('click', () => { S.settlementOpen = false; renderAll(); });
  $('#last-settlement-btn').addEventListener('click', () => { S.settlementOpen = true; renderAll(); });
  $('#reconnect-btn').addEventListener('click', () => { if (S.socket) S.socket.reopen(); });
  const askDissolve = () => { S.confirmDissolve = true; S.voteResult = null; renderVote(); };
  $('#dissolve-btn').addEventListener('click', askDissolve);
  $('#settle-dissolve-btn').addEventListener('click', askDissolve);
  $('#lang-toggle').addEventListener('click', () => {
    setLang(getLang() === 'zh' ? 'en' : 'zh');
    translateDom();
    if (S.conn !== 'idle') setConn(S.conn);
    renderAll();
  });
  window.addEventListener('popstate', route);
  setInterval(tick, 250);
}

function route() {
  const params = new URLSearchParams(location.search);
  const code = (params.get('room') || '').trim().toUpperCase();
  if (code) {
    const stored = store.seat(code);
    if (stored && stored.token) {
      enterRoom(code, stored);
      return;
    }
  }
  showLobby(code || null);
}

setLang(getLang());
translateDom();
bind();
route();
