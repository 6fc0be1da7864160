// 贵阳捉鸡麻将 browser client. Plain ES modules, no build step.
// The server sends each seat its own `view` and `legal` actions; we render `view` and offer `legal`.
import { t, getLang, setLang, translateDom, botName, defaultName, reasonText, handTypeText, winKindText, termText, errorMessage, validationMessage, CHICKEN_KINDS, chickenKindText, chickenName } from './i18n.js';
import { tileEl, tileName, sortTiles, suitOf, suitName, setTileGame, dieEl } from './tiles.js';
import { h } from './dom.js';
import { JT_FANS, fanName, jintanWinEl, winnerHandText } from './jintan.js';
import { readySeats, readyMark, huangWhy, reasonNetsEl, REASON_ORDER } from './settle.js';
import { seatPosition, turnedTile } from './seats.js';
import { api, store, profile, ApiError } from './api.js';
import { RoomSocket } from './net.js';
import { verifyEl } from './wall.js';
import { play as playSound, isMuted, setMuted } from './sound.js';
import { PHRASES, EMOTES, PHRASE_SECONDS, BUBBLE_MS, phraseText, isEmote, emoteSvg } from './phrases.js';

const $ = (sel, root = document) => root.querySelector(sel);

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
  discardIsLatest: true, // no claim / kong / flower since the last discard (the centre shows it)
  autoSeats: [],
  readySeats: [],
  pollTimer: null,
  // versions: the last (hand_no, version) seen on this connection; `fromEvent` when it came from
  // an event (then the next event's prev_version must equal it), not from a snapshot
  seen: null,
  syncPending: false,
  syncCount: 0,
  answeredPrompt: null, // the prompt this seat already answered (answer each prompt once)
  // this seat's last answer ({prompt, action}; a snapshot keeps it): a claim's says 已选择碰
  // while its window waits for the others
  lastAnswer: null,
  staleCount: 0, // stale_prompt errors (shown gently: a re-render)
  lastError: null,
  vote: null, // the open dissolve_vote message
  voteResult: null, // {result, votes} of the last closed vote, until dismissed
  confirmDissolve: false,
  standings: null, // final standings (session_end / snapshot)
  dissolved: false,
  dissolvedBy: null, // the vote that dissolved the room (its closing message), for the standings
  degraded: [], // services the room waits for (`degraded` / `recovered`, snapshot.degraded)
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
  el.refusal = err instanceof ApiError ? err : null; // said again in the other language
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
  let name = info && info.bot ? botName(i) : info && info.name ? info.name : `${t('seat')}${i + 1}`;
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

/** Where seat ``i`` sits at the table (`seatPosition`), you at the bottom; a spectator sees
 *  the table from seat 0. */
function seatPos(i) {
  return seatPosition(i, S.seat === null || S.seat === undefined ? 0 : S.seat, nPlayers());
}

function totals() {
  if (S.room && Array.isArray(S.room.totals)) return S.room.totals;
  return [];
}

function fmtPts(v) {
  if (typeof v !== 'number') return v === undefined || v === null ? '' : String(v);
  return v > 0 ? `+${v}` : String(v);
}

/** A room's rules in a line (the table's header, 战绩): 金坛麻将 · 底数 10 · ... / 4人 · 连庄 · .... */
export function optionsSummary(o, game = 'guiyang') {
  if (!o) return '';
  const parts = [];
  // the time bank, either game's (Jintan's rules left it out)
  const bank = typeof o.bank_seconds === 'number' ? `${t('bank_seconds')} ${o.bank_seconds ? `${o.bank_seconds}s` : t('bank_none')}` : null;
  if (game === 'jintan') {
    parts.push(t('game_jintan'), `${t('jt_base')} ${o.base}`, `${t('jt_flower_value')} ${o.flower_value}`);
    parts.push(o.chow ? t('jt_chow') : t('jt_no_chow'));
    if (o.hands) parts.push(t('hands_n', { n: o.hands }));
    if (bank) parts.push(bank);
    return parts.join(' · ');
  }
  const pl = { 4: t('players_4'), 3: t('players_3'), 2: t('players_2') }[o.players] || o.players;
  parts.push(pl);
  // localised as the lobby's labels (English keeps the term: "Dealer streak (连庄)")
  parts.push({ lian_zhuang: t('lian_zhuang'), yi_kou_san: t('yi_kou_san'), yi_kou_er: t('scoring_yi_kou_er') }[o.scoring] || o.scoring);
  if (o.yao_bai_ji) parts.push(t('yao_bai_ji'));
  if (o.man_tang_ji) parts.push(t('man_tang_ji'));
  for (const k of CHICKEN_OPTIONS) if (o[k]) parts.push(t(k));
  if (o.hands) parts.push(t('hands_n', { n: o.hands }));
  if (o.base_points && o.base_points !== 1) parts.push(`${t('base_points')} ${o.base_points}`);
  if (bank) parts.push(bank);
  return parts.join(' · '); // (its CSS keeps each Chinese word whole: word-break: keep-all)
}

function setUrlRoom(code) {
  const url = new URL(location.href);
  if (code) url.searchParams.set('room', code);
  else url.searchParams.delete('room');
  url.searchParams.delete('watch'); // 观战 sets it again (spectate())
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
    const text = en ? o.hint_en : o.hint_zh; // what the option does, under it (a box: beside it)
    const hint = text ? h('small', { class: 'hint', id: `${id}-hint`, text }) : null;
    if (o.type === 'bool') { // a box to tick, like Guiyang's (连庄, 鸡 ...)
      box.append(h('div', { class: 'checks' }, h('label', { class: 'check' },
        h('input', { type: 'checkbox', id, checked: o.default ? true : null, dataset: { option: o.name, kind: 'bool' } }),
        h('span', { text: label })), hint));
    } else {
      box.append(h('label', { class: 'field small' }, h('span', { text: label }),
        h('input', {
          type: o.type === 'int' ? 'number' : 'text', id, value: String(o.default),
          min: o.min ?? null, max: o.max ?? null, dataset: { option: o.name, kind: o.type },
        }), hint));
    }
  }
}

/** `renderGameOptions` again, in the page's language now, keeping what was entered. */
async function relabelGameOptions() {
  const entered = readGameOptions();
  await renderGameOptions();
  for (const [name, value] of Object.entries(entered)) {
    const el = document.querySelector(`#game-options [data-option="${name}"]`);
    if (el) setControl(el, value);
  }
}

/** Put ``value`` in a form control of the create form (a checkbox ticked or not; a radio
 *  button is chosen by its own value, not here). */
function setControl(el, value) {
  if (el.type === 'checkbox') el.checked = Boolean(value);
  else if (el.type !== 'radio') el.value = String(value);
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

/** Fill the create form with the rules of the last room made here (`store.rules()`), as the
 *  apps offer 上次的玩法: a group plays the same rules night after night. A control that no
 *  longer exists, or a value it does not offer, is left at its default. */
async function restoreRules(saved) {
  if (!saved) return;
  const game = document.getElementById(`opt-game-${saved.game}`);
  if (!game) return;
  game.checked = true;
  await renderGameOptions();
  const form = $('#create-form');
  for (const [k, v] of Object.entries(saved.options)) {
    const radio = form.querySelector(`input[type="radio"][name="${k}"][value="${v}"]`);
    if (radio) { radio.checked = true; continue; }
    const el = form.querySelector(`#game-options [data-option="${k}"]`) || document.getElementById(`opt-${k.replaceAll('_', '-')}`);
    if (el && form.contains(el)) setControl(el, v);
  }
}

function myName() {
  let name = $('#name').value.trim();
  if (!name) {
    name = defaultName();
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
    store.setRules(chosenGame(), opts); // the next room starts from these (restoreRules)
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
    // watch it instead (a seat kept for the last session's player is no seat either), or
    // see how an ended one finished (its standings)
    if (e instanceof ApiError && ['room_full', 'seat_held', 'session_over'].includes(e.code)) {
      offerSpectate(code, e.code === 'session_over');
    }
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
  $('#conn-banner').hidden = true;
  S.degraded = [];
  renderDegraded();
  $('#name').value = store.name();
  renderActiveRooms();
  if (code) {
    $('#join-code').value = code;
    $('#join-card').classList.add('focus');
    // a shared link to a room that does not exist says so at once, not after 加入
    showError($('#join-error'), '');
    offerSpectate(code);
    api.room(code).catch((e) => {
      if (!(e instanceof ApiError) || e.status !== 404) return;
      if ($('#join-code').value.trim().toUpperCase() !== code) return;
      e.roomCode = code;
      showError($('#join-error'), apiErrorText(e), e);
    });
  }
}

/** 进行中的房间: the rooms not over yet whose seat this browser holds (its token is stored),
 *  newest first (at most 3), each with 回到房间: leaving a room for the lobby never means
 *  typing its code again. Nothing without a profile, or when the server cannot be asked. */
async function renderActiveRooms() {
  const card = $('#active-card');
  card.hidden = true;
  if (!profile.get()) return;
  let rows;
  try { rows = (await api.myRooms()).rows || []; } catch (e) { return; }
  if ($('#lobby').hidden) return; // a room was entered meanwhile
  const live = rows.filter((r) => ACTIVE.includes(r.status) && (store.seat(r.code) || {}).token).slice(0, 3);
  $('#active-rooms').replaceChildren(...live.map(activeRoomEl));
  card.hidden = !live.length;
}

const ACTIVE = ['open', 'playing', 'between'];

function activeRoomEl(r) {
  const total = (r.standings || {})[r.seat] ?? 0;
  const status = r.status === 'open' ? t('room_waiting')
    : `${t('room_in_play')} · ${t('hands_played', { n: r.hands, m: r.options.hands })} · ${t('total')} ${fmtPts(total)}`;
  const back = () => { setUrlRoom(r.code); enterRoom(r.code, store.seat(r.code)); };
  return h('li', { class: 'active-room', dataset: { code: r.code, status: r.status } },
    h('div', { class: 'active-room-head' }, h('b', { class: 'code', text: r.code }),
      h('span', { class: 'badge', text: status })),
    h('div', { class: 'muted rules-line', text: optionsSummary(r.options, r.game) }),
    h('button', { type: 'button', class: 'primary small', onclick: back, text: t('back_to_room') }));
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
    token: seatInfo ? seatInfo.token : null, room: null, view: null, legal: [], deadline: null, bankFrom: null,
    discardIsLatest: true, roomPolled: null, settlement: null, settlementOpen: false, endedSeen: false, readySent: false, autoSeats: [], readySeats: [], sessionOver: false, pending: false,
    seen: null, syncPending: false, answeredPrompt: null, vote: null, voteResult: null, confirmDissolve: false, standings: null, dissolved: false, dissolvedBy: null,
  });
  $('#lobby').hidden = true;
  $('#room').hidden = false;
  $('#home-link').title = t('back_lobby'); // the seat stays; the lobby lists the room to come back
  $('#room-badge').hidden = false;
  $('#conn-state').hidden = false;
  $('#room-code').textContent = code;
  $('#room-code-top').textContent = code;
  $('#share-link').value = shareUrl(code);
  renderAll();
  refreshRoom();
  S.pollTimer = setInterval(() => { if (!document.hidden) refreshRoom(); }, 4000);
  S.socket = new RoomSocket(code, S.token, {
    onMessage: (msg) => { const seen = S.seen; onMessage(msg); afterMessage(msg, S.seen !== seen); },
    onState: setConn,
    onFatal: (wsCode) => {
      if (wsCode === 4409) {
        onReplaced();
        return;
      }
      if (wsCode === 4401) {
        store.clearSeat(code);
        toast(errorMessage('bad_token'));
        showLobby(code);
      } else {
        // the room is gone (or never was): the lobby says so at its join card
        toast(errorMessage('unknown_room', { code }));
        store.clearSeat(code);
        showLobby(code);
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
    // the poll runs every 4 s: the same answer as last time changes nothing on the table
    // (re-rendering it would only rebuild every panel under the player's finger)
    const seen = JSON.stringify(room);
    if (seen === S.roomPolled) return;
    S.roomPolled = seen;
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
  const rb = $('#reconnect-btn');
  // a seat taken by another tab: the banner's 在本页继续 is the way back (not a second button)
  if (rb) rb.hidden = state !== 'closed' || !!S.replaced;
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

/** The room waits for its database: a small banner in the top bar until it is back. */
function renderDegraded() {
  let el = $('#degraded-banner');
  if (!el) {
    el = h('span', { id: 'degraded-banner', role: 'status' });
    // set through the CSSOM (allowed by the CSP, unlike a style attribute)
    Object.assign(el.style, {
      fontSize: '12px', padding: '2px 8px', borderRadius: '10px', background: '#b45309', color: '#fff',
    });
    $('#conn-state').after(el);
  }
  el.textContent = t('waiting_database');
  el.hidden = !S.degraded.includes('database');
}

function onMessage(msg) {
  switch (msg.type) {
    case 'degraded':
    case 'recovered':
      S.degraded = S.degraded.filter((s) => s !== msg.service);
      if (msg.type === 'degraded') S.degraded.push(msg.service);
      renderDegraded();
      break;
    case 'snapshot':
      if (Array.isArray(msg.degraded)) { S.degraded = msg.degraded; renderDegraded(); }
      if (S.seen && !isNewer(msg) && msg.hand_no === S.seen.hand && msg.version < S.seen.version) {
        // an older picture than the events already shown (a sync crossed them): keep ours
        if (msg.room) S.room = msg.room;
        S.syncPending = false;
        renderAll();
        break;
      }
      S.pending = false;
      S.syncPending = false;
      // the server's word on what this seat still owes: an answer lost with a dropped socket
      // is given again (one it had taken is refused quietly as stale_prompt), and a vote
      // the snapshot shows this seat has not cast may be cast
      S.answeredPrompt = null;
      noteSeen(msg, false);
      if (typeof msg.prompt === 'number') S.prompt = msg.prompt; // the decision `legal` belongs to
      if (msg.version === 0) S.discardIsLatest = true;
      if (msg.version !== undefined) S.version = msg.version;
      if (msg.seat !== undefined) S.seat = msg.seat;
      if (msg.room) {
        S.room = msg.room;
        // the snapshot's auto flags replace those of `auto` messages it may have missed (its
        // own `auto` for this seat: the room's may be those of a claim window's opening)
        const others = (msg.room.seats || []).filter((x) => x && x.auto && x.seat !== msg.seat).map((x) => x.seat);
        S.autoSeats = msg.auto && typeof msg.seat === 'number' ? [...others, msg.seat] : others;
      }
      if (msg.version === 0) S.eventText = dealFlowersText(msg.view); // (names from the room)
      if ('vote' in msg) {
        S.vote = msg.vote && msg.vote.result === 'open' ? msg.vote : null;
        const mine = S.vote && typeof msg.seat === 'number' ? S.vote.votes[msg.seat] : null;
        S.voteSent = mine !== null && mine !== undefined;
      }
      if (Array.isArray(msg.standings)) S.standings = msg.standings;
      noteHandNo(msg);
      if (S.room && ENDED_STATUSES.has(S.room.status)) S.sessionOver = true;
      if (S.room && S.room.status === 'dissolved') S.dissolved = true;
      if (msg.settlement && S.room && ['between', 'finished', 'dissolved'].includes(S.room.status)) {
        if ('view' in msg) S.view = msg.view;
        if ('legal' in msg) S.legal = Array.isArray(msg.legal) ? msg.legal : [];
        if ('deadline' in msg) setDeadline(msg);
        // the settlement of a hand this page already showed (a reconnect, a sync between
        // hands) stays as the player left it: closed if they closed it, not popped open again
        if (!S.settlement || S.settlement.handNo !== msg.hand_no) S.endedSeen = false;
        onHandEnd(msg.settlement, S.room.totals, msg);
        // the room's word on this seat's ready: one it has stays sent, one lost with a
        // dropped socket may be given again
        if (Array.isArray(msg.ready) && typeof msg.seat === 'number') {
          S.readySeats = msg.ready;
          S.readySent = msg.ready.includes(msg.seat);
          renderAll();
        }
        break;
      }
      if (msg.previous && S.room && S.room.status === 'playing') notePrevious(msg.previous);
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
      noteEvents(msg);
      noteHandNo(msg);
      applyView(msg);
      break;
    case 'hand_end':
      // the change that ended the hand: its events, the final view and the settlement
      if (!isNewer(msg)) break;
      if (missedBefore(msg)) requestSync();
      noteSeen(msg, true);
      S.pending = false;
      if (typeof msg.prompt === 'number') S.prompt = msg.prompt;
      if (msg.version !== undefined) S.version = msg.version;
      noteEvents(msg);
      if (msg.view) S.view = msg.view;
      S.legal = [];
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
        if (S.voteResult && S.voteResult.result === 'dissolved') S.dissolvedBy = S.voteResult;
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
        S.voteResult = { result: msg.result, votes: msg.votes || [], proposed: msg.proposed, at: Date.now() };
      }
      renderAll();
      break;
    case 'auto':
      S.autoSeats = Array.isArray(msg.auto) ? msg.auto : [];
      // the latest word on the flags: the room info (polled every 4 s) must not keep a seat
      // shown on 托管 after it was turned off
      if (S.room && Array.isArray(S.room.seats)) {
        S.room = { ...S.room, seats: S.room.seats.map((x) => (x ? { ...x, auto: S.autoSeats.includes(x.seat) } : x)) };
      }
      renderAll();
      break;
    case 'ready':
      S.readySeats = Array.isArray(msg.ready) ? msg.ready : [];
      if (S.readySeats.includes(S.seat)) S.readySent = true; // (sent from another tab too)
      renderAll(); // (each seat's 已准备)
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
  if ('deadline' in msg) setDeadline(msg);
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

/** The engine events of one change (an `event` / `hand_end` message's `events`, in order). */
function eventsOf(msg) {
  return Array.isArray(msg.events) ? msg.events.filter((e) => e && e.type) : [];
}

function noteEvents(msg) {
  const evs = eventsOf(msg);
  if (evs.length) S.lastEvent = evs[evs.length - 1];
  for (const ev of evs) {
    // a claim, a kong or a flower since the discard: the table has moved on, the centre
    // shows that, not the discard (still marked in its river unless it was claimed)
    if (['discard', 'pong', 'chow', 'kong', 'kong_declared', 'flower'].includes(ev.type)) S.discardIsLatest = ev.type === 'discard';
    noteEvent(ev);
  }
}

function noteEvent(ev) {
  const who = seatName(ev.seat);
  const tn = ev.tile ? tileName(ev.tile) : '';
  let text = '';
  switch (ev.type) {
    case 'pong': text = `${who} ${t('act_pong')} ${tn}`; break;
    case 'chow': text = `${who} ${t('act_chow')} ${(ev.tiles || []).map(tileName).join('')}`; break;
    case 'flower': text = `${who} ${t('bu_hua')} ${tn}`; break;
    // which kong (补杠, 转弯豆, ...): a bare 杠 beside the last discard read as a kong of it
    case 'kong': case 'kong_declared': text = `${who} ${kongName(ev.kind)} ${tn}`; break;
    case 'win': {
      const ws = (ev.winners || []).map(seatName).join(', ');
      text = `${ws} ${t('act_win')} ${tn}${winKindText(ev.kind) ? ' · ' + winKindText(ev.kind, true) : ''}`;
      break;
    }
    case 'discard': if (ev.bao_ting) text = `${who} ${t('bao_ting')}`; break; // a plain discard clears "X 碰 …"
    case 'huang_zhuang': text = t('result_huang'); break;
    default: return;
  }
  S.eventText = text;
}

/** A snapshot's `previous` (the hand settled before this one): a settlement this page never
 * got (away over the deal) becomes 上局结算, closed, and a note says what it was. */
// The last hand whose settlement this tab showed, per room: a reload during the next hand
// does not announce it again (sessionStorage: gone with the tab).
const seenKey = (code) => `gy.settled.${code}`;
function settlementSeen(code) {
  try { return Number(sessionStorage.getItem(seenKey(code))) || 0; } catch (e) { return 0; }
}
function markSettlementSeen(code, handNo) {
  if (!code || !Number.isInteger(handNo) || handNo <= settlementSeen(code)) return;
  try { sessionStorage.setItem(seenKey(code), String(handNo)); } catch (e) { /* private mode */ }
}

function notePrevious(prev) {
  if (!prev.settlement || (S.settlement && S.settlement.handNo === prev.hand_no)) return;
  S.settlement = { settlement: prev.settlement, totals: null, handNo: prev.hand_no, msg: { replay: prev.replay } };
  S.settlementOpen = false;
  S.endedSeen = false;
  const deltas = Array.isArray(prev.settlement.deltas) ? prev.settlement.deltas : null;
  if (deltas && Number.isInteger(S.seat) && settlementSeen(S.code) < prev.hand_no) {
    toast(t('previous_settled', { n: prev.hand_no, delta: fmtPts(deltas[S.seat] ?? 0) }), 'info');
    markSettlementSeen(S.code, prev.hand_no);
  }
}

/** Jintan's flowers laid at the deal (§J2), said in the centre as later ones are: a line
 * 开局补花, then one `name ×n` line per seat that laid any ('' when none). */
function dealFlowersText(view) {
  const seats = (view && Array.isArray(view.seats)) ? view.seats : [];
  const lines = seats.filter((x) => x && Array.isArray(x.flowers) && x.flowers.length)
    .map((x) => `${seatName(x.seat)} ×${x.flowers.length}`);
  return lines.length ? [t('deal_flowers'), ...lines].join('\n') : '';
}

function onHandEnd(settlement, tots, msg) {
  if (Array.isArray(tots)) S.room = { ...(S.room || {}), totals: tots };
  const handNo = S.room ? S.room.hand_no : null;
  const already = S.endedSeen && S.settlement;
  if (msg && 'deadline' in msg) setDeadline(msg);
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
  markSettlementSeen(S.code, handNo);
  if (msg && (msg.session_over || msg.final || msg.finished || msg.game_over)) S.sessionOver = true;
  const totalHands = (S.room && ((S.room.options && S.room.options.hands) || S.room.hands)) || null;
  if (totalHands && typeof handNo === 'number' && handNo >= totalHands) S.sessionOver = true;
  renderAll();
  refreshRoom();
}

/** 再来一场: go on in the session's next room (the server makes it for the first to ask,
 * with the same rules and bots), seated there under this seat's name. */
async function playAgain() {
  const btn = $('#again-btn');
  btn.disabled = true;
  try {
    const next = (S.room && S.room.next) || (await api.again(S.code, S.token)).code;
    const stored = store.seat(next);
    const me = ((S.room && S.room.seats) || []).find((x) => x && x.seat === S.seat);
    // in the seat held here if it is free: 对家 stays 对家
    const joined = stored && stored.token ? stored : await api.join(next, (me && me.name) || myName(), S.seat);
    store.setSeat(next, joined.seat, joined.token);
    setUrlRoom(next);
    enterRoom(next, joined);
  } catch (e) {
    toast(apiErrorText(e));
  } finally {
    btn.disabled = false;
  }
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
  S.lastAnswer = { prompt: S.prompt, action };
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
  setTileGame(S.room && S.room.game);
  renderDegraded();
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
  renderSocial();
  renderRules();
  tick();
}

function renderRoomInfo() {
  const r = S.room;
  $('#room-options').textContent = r ? optionsSummary(r.options, r.game) : '';
  document.title = r ? t(r.game === 'jintan' ? 'brand_jintan' : 'brand_guiyang') : t('title');
  $('#home-link').textContent = r ? t(r.game === 'jintan' ? 'brand_jintan' : 'brand_guiyang') : t('title');
  const list = $('#seat-list');
  list.replaceChildren();
  const n = (r && r.options && r.options.players) || nPlayers();
  const seats = (r && r.seats) || [];
  let empty = 0;
  // each seat's wind for the coming hand (the dealer East, then in turn order), as at the table
  const dealer = r && typeof r.dealer === 'number' ? r.dealer : 0;
  const seatNo = (i) => {
    const w = windOf(i, dealer, n);
    return h('span', { class: 'seat-no', dataset: { wind: w }, title: t('wind_title', { w }), text: w });
  };
  for (let i = 0; i < n; i++) {
    const info = seats.find((x) => x && x.seat === i);
    const kept = ((r && r.held) || []).find((x) => x && x.seat === i);
    const li = h('li', { dataset: { seat: String(i) }, class: info ? 'taken' : 'empty' });
    if (info) {
      li.append(seatNo(i), h('b', { text: info.bot ? botName(i) : info.name || '' }));
      if (i === dealer) li.append(h('span', { class: 'badge seat-dealer', text: t('dealer') }));
      if (i === S.seat) li.append(h('span', { class: 'badge me', text: t('you') }));
      if (!info.bot) li.append(h('span', { class: `dot ${info.connected ? 'on' : 'off'}` }));
    } else if (kept) {
      // 再来一场: kept a while for last session's player (no bot is put there)
      li.className = 'empty held';
      // (its seconds left, ticking: `tick`)
      li.append(seatNo(i), h('i', { class: 'muted', text: t('held_for', { name: kept.name }) }),
        h('span', { class: 'muted held-left', dataset: { until: String(kept.until || '') } }));
    } else {
      empty++;
      li.append(seatNo(i), h('i', { class: 'muted', text: t('empty_seat') }));
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
  // the dice the deal rolled (guiyang.md §2), as the apps show them by the wall
  const dice = $('#dice');
  const rolled = Array.isArray(v.dice) ? v.dice : [];
  if (dice.dataset.dice !== rolled.join(',')) {
    dice.dataset.dice = rolled.join(',');
    dice.title = rolled.length ? t('dice_title', { a: rolled[0], b: rolled[1] }) : '';
    dice.replaceChildren(...rolled.map(dieEl));
  }
  const di = $('#dealer-info');
  const streak = v.dealer_streak ?? r.dealer_streak;
  di.textContent = `${t('dealer')}: ${seatName(v.dealer)}${streak > 1 && scoresStreak() ? ' ' + t('streak', { n: streak }) : ''}`;
  di.title = `${t('dealer_title')}: ${seatName(v.dealer)}`; // (the line may be cut short)
  di.dataset.dealer = String(v.dealer);
  $('#last-settlement-btn').hidden = !(S.settlement && !S.settlementOpen);
  $('#dissolve-btn').hidden = !canProposeDissolve();
  const ss = $('#session-state');
  ss.textContent = S.sessionOver ? (S.dissolved ? t('session_dissolved') : t('session_over')) : '';
  ss.dataset.state = S.sessionOver ? (S.dissolved ? 'dissolved' : 'finished') : '';
}

/** The dealer streak (连N) means something only in rooms that score 连庄 (spec §10.2). */
function scoresStreak() {
  const o = S.room && S.room.options;
  return !!(o && o.scoring === 'lian_zhuang');
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

/** Seat ``i``'s wind (门风) of ``n`` seats: the dealer East, then in turn order. */
function windOf(i, dealer, n) {
  return t('winds')[(i - dealer + n) % n];
}

function seatHead(i, sv) {
  const v = S.view;
  const head = h('div', { class: 'seat-head' });
  const info = S.room && S.room.seats ? S.room.seats.find((x) => x && x.seat === i) : null;
  if (v && typeof v.dealer === 'number') { // 门风: the dealer sits East, then in turn order
    const w = windOf(i, v.dealer, nPlayers());
    head.append(h('span', { class: 'wind', dataset: { wind: w }, title: t('wind_title', { w }), text: w }));
  }
  head.append(h('b', { class: 'seat-name', text: seatName(i) }));
  const rel = relLabel(i);
  if (rel && i !== S.seat) head.append(h('span', { class: 'muted rel', text: rel }));
  if (v && v.dealer === i) {
    const streak = v.dealer_streak || 1;
    const shown = scoresStreak() && streak > 1;
    head.append(h('span', { class: 'badge dealer', dataset: { dealer: 'true', streak: shown ? String(streak) : '' }, text: t('dealer') + (shown ? t('streak', { n: streak }) : ''),
      title: shown ? t('dealer_streak_title', { n: streak }) : t('dealer_title') }));
  }
  if (sv.bao_ting) head.append(h('span', { class: 'badge baoting', dataset: { baoTing: 'true' }, text: t('bao_ting') }));
  if (sv.ding_que) head.append(h('span', { class: `badge que suit-${sv.ding_que}`, dataset: { que: sv.ding_que }, text: `${t('que')}${suitName(sv.ding_que)}` }));
  if (isAuto(i, sv)) head.append(h('span', { class: 'badge auto', dataset: { auto: 'true' }, text: t('auto') }));
  // between hands: who has pressed 准备 (the apps mark each seat)
  if (v && v.phase === 'ended' && !S.sessionOver && S.readySeats.includes(i)) {
    head.append(h('span', { class: 'badge ready', dataset: { ready: 'true' }, text: t('ready_badge') }));
  }
  if (info && !info.bot) head.append(h('span', { class: `dot ${info.connected ? 'on' : 'off'}`, title: t(info.connected ? 'seat_online' : 'seat_offline') }));
  // a player gone away is said in words (a grey dot alone went unnoticed)
  if (info && !info.bot && !info.connected) head.append(h('span', { class: 'badge offline', dataset: { offline: 'true' }, text: t('seat_offline') }));
  const tot = totals()[i];
  head.append(h('span', { class: 'score', dataset: { score: String(tot ?? 0) }, text: t(Math.abs(tot ?? 0) === 1 ? 'score_one' : 'score', { n: tot ?? 0 }) }));
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

// Guiyang's kongs are 豆 (闷 / 明 / 转弯), Jintan's 暗杠 / 明杠 / 补杠
const KONG_TAGS = { men_dou: 'tag_men_dou', ming_dou: 'tag_ming_dou', zhuan_wan_dou: 'tag_zhuan_wan_dou', concealed_kong: 'tag_concealed_kong', exposed_kong: 'tag_exposed_kong', added_kong: 'tag_added_kong' };
/** A kong's name in an event line: Guiyang's 豆 by its term (闷豆), Jintan's by its tag (补杠), else 杠. */
const kongName = (kind) => douText(kind) || (KONG_TAGS[kind] ? t(KONG_TAGS[kind]) : t('act_kong'));

/** A seat's melds. A claimed tile is turned sideways towards the seat it came from (a
 *  chow's, the tile taken, where it lies in the run); a
 *  concealed kong (闷豆) shows the others three backs and the one tile laid open (spec §4),
 *  and its owner (everyone once the hand is over: ``open``) all four faces, marked 闷
 *  (concealed); kongs carry a small tag. */
function meldsEl(sv, owner, open = false) {
  const box = h('div', { class: 'melds', dataset: { count: String((sv.melds || []).length) } });
  const mine = open || (owner !== undefined && owner === S.seat);
  for (const m of sv.melds || []) {
    const kind = m.kind || '';
    const concealed = kind === 'men_dou' || kind === 'concealed_kong';
    const grp = h('span', { class: `meld meld-${kind}`, dataset: { kind, from: m.from ?? '' } });
    const tiles = m.tiles || [];
    const turn = turnedTile(m, owner, nPlayers());
    tiles.forEach((tl, k) => {
      if (concealed && !mine) {
        grp.append(k === 1 ? tileEl(tl, { size: 'sm', classes: ['kong-shown'] }) : tileEl('back', { size: 'sm' }));
        return;
      }
      const cls = [];
      if (k === turn) cls.push('turned-claim');
      if (concealed) cls.push('concealed-own');
      grp.append(tileEl(tl, { size: 'sm', classes: cls }));
    });
    if (turn !== null) grp.dataset.turned = String(turn);
    if (m.from !== undefined && m.from !== null) grp.title = `${t(`act_${kind === 'pong' || kind === 'chow' ? kind : 'kong'}`)} ← ${seatName(m.from)}`;
    if (KONG_TAGS[kind]) grp.append(h('small', { class: 'meld-tag', text: t(KONG_TAGS[kind]) }));
    box.append(grp);
  }
  return box;
}

/** The latest discard still in its river: ``{seat, tile, index?}``, from the view's
 *  ``last_discard`` (claim window) or ``river_last`` (so also after a reload), else null. */
function lastDiscard() {
  const v = S.view;
  if (v && v.last_discard) return v.last_discard;
  if (v && v.river_last) {
    const ds = seatView(v.river_last.seat).discards || [];
    const d = ds[v.river_last.index];
    return { seat: v.river_last.seat, index: v.river_last.index, tile: typeof d === 'string' ? d : d && d.tile };
  }
  return null;
}

function riverEl(i, sv) {
  const v = S.view;
  const box = h('div', { class: 'river', dataset: { seat: String(i) } });
  const ds = sv.discards || [];
  const last = lastDiscard();
  const claimed = new Set(Array.isArray(sv.claimed) ? sv.claimed : []);
  ds.forEach((d, k) => {
    const tl = typeof d === 'string' ? d : d && d.tile;
    const isLast = last && last.seat === i && k === (last.index ?? ds.length - 1) && last.tile === tl && !claimed.has(k);
    const el = tileEl(tl, { size: 'sm', classes: isLast ? ['last-discard'] : [] });
    // the 报听 discard (always the seat's first, spec §5) lies sideways
    if (k === 0 && sv.bao_ting) { el.classList.add('bao-ting-discard'); el.dataset.baoTing = 'true'; }
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

/** Seat ``i``'s concealed tiles once the hand is over (摊牌), from the settlement (it is the
 *  only message that carries them); ``null`` while the hand goes on. */
function shownHand(i) {
  if (!S.view || S.view.phase !== 'ended') return null;
  const hands = S.settlement && S.settlement.settlement && S.settlement.settlement.hands;
  return Array.isArray(hands) && Array.isArray(hands[i]) ? hands[i] : null;
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
    const shown = shownHand(i);
    const cc = sv.concealed_count ?? 0;
    const hidden = h('div', { class: 'concealed', dataset: { count: String(cc) } });
    if (shown) { // 摊牌: the hand is over, every hand lies open, a winner's winning tile apart
      hidden.classList.add('shown');
      const st = S.settlement.settlement;
      const winTile = (st.winners || []).includes(i) ? winTileOf(paymentsOf(st), i) : null;
      const tiles = withoutOne(shown, winTile);
      hidden.append(...sortTiles(tiles).map((tl) => tileEl(tl, { size: 'xs' })));
      if (winTile && tiles.length < shown.length) hidden.append(tileEl(winTile, { size: 'xs', classes: ['win-tile'] }));
    } else {
      const backs = h('span', { class: 'backs' });
      for (let k = 0; k < Math.min(cc, 14); k++) backs.append(h('span', { class: 'back-mini' }));
      hidden.append(backs, h('span', { class: 'count', text: `×${cc}` }));
    }
    const row = h('div', { class: 'opp-row' }, hidden, meldsEl(sv, i, !!shown));
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
  } else if (last && last.tile && v.phase !== 'ended' && (S.discardIsLatest || v.last_discard)) {
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
  // a spectator is told what the table waits for while the seats choose their void suits
  else if (S.seat === null || S.seat === undefined) text = v.phase === 'ding_que' ? `${t('spectator')} · ${t('waiting_que')}` : t('spectator');
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
  $('#my-melds').replaceWith(Object.assign(meldsEl(sv, S.seat), { id: 'my-melds' }));
  $('#my-flowers').replaceWith(Object.assign(flowersEl(sv), { id: 'my-flowers' }));
  const waits = $('#waits');
  waits.replaceChildren();
  if (Array.isArray(v.waits) && v.waits.length) {
    waits.hidden = false;
    waits.append(h('span', { class: 'waits-label', text: t('waits') }));
    for (const w of v.waits) {
      const tile = typeof w === 'string' ? w : w.tile;
      const unseen = typeof w === 'object' ? w.unseen : undefined;
      // Jintan: a wait with no 花 and no 番 wins by self-draw (or a robbed kong) only, never
      // on a discard (一花起胡, jintan.md §J4)
      const zmOnly = typeof w === 'object' && w.self_draw_only === true;
      waits.append(h('span', { class: 'wait', dataset: { unseen: String(unseen ?? ''), selfDrawOnly: String(zmOnly) } },
        tileEl(tile, { size: 'sm' }),
        unseen !== undefined ? h('small', { text: t('unseen', { n: unseen }) }) : null,
        zmOnly ? h('small', { class: 'self-draw-only', text: t('self_draw_only') }) : null));
    }
    // why, once: a wait that may not win on a discard looked like a bug
    if (v.waits.some((w) => typeof w === 'object' && w.self_draw_only === true)) {
      waits.append(h('small', { class: 'self-draw-why', text: t('self_draw_only_why') }));
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
  const main = sortTiles(hand, sv.ding_que);
  if (!drawn && main.length % 3 === 2 && dealtFourteen()) {
    // the dealer's dealt 14th stands apart as every turn's drawn tile does, so the hand
    // keeps its place when the first discard leaves 13 (which of the 14 is not known here)
    drawn = main.pop();
  }
  return { main, drawn };
}

/** Whether the table is still at the deal: nobody has discarded or melded yet. */
function dealtFourteen() {
  const seats = (S.view && S.view.seats) || [];
  return seats.every((sv) => !(sv.discards || []).length && !(sv.melds || []).length);
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
  const hints = (v.ting_hints && typeof v.ting_hints === 'object') ? v.ting_hints : {};
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
    const hint = hints[tile];
    if (hint && discardable.has(tile) && !S.pending) {
      // 听牌提示: discarding this tile leaves the hand ready
      el.classList.add('ting');
      el.dataset.ting = hint.map(([w, n]) => `${w}:${n}`).join(',');
      el.addEventListener('mouseenter', () => { S.hoverTile = tile; renderTingHints(); });
      el.addEventListener('mouseleave', () => { if (S.hoverTile === tile) { S.hoverTile = null; renderTingHints(); } });
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
  renderTingHints();
}

/** 听牌提示 while choosing a discard: each discard that leaves the hand ready, with the
 *  waits it would give and how many of each this seat has not seen (the view's
 *  ``ting_hints``, computed by the server for this seat only). The tile under the pointer
 *  (or raised by a tap) is highlighted. */
function renderTingHints() {
  const box = $('#ting-hints');
  if (!box) return;
  box.replaceChildren();
  const v = S.view;
  const hints = v && v.ting_hints && typeof v.ting_hints === 'object' ? v.ting_hints : {};
  const discardable = new Set(legalOf('discard').map((a) => a.tile));
  const keys = sortTiles(Object.keys(hints).filter((k) => discardable.has(k)));
  if (!keys.length || S.pending || S.seat === null || S.seat === undefined) { box.hidden = true; return; }
  box.hidden = false;
  const focus = (S.selected && S.selected.tile) || S.hoverTile || null;
  box.append(h('span', { class: 'waits-label', text: t('ting_hints') }));
  for (const k of keys) {
    const entry = h('span', {
      class: `ting-hint ${k === focus ? 'focus' : ''}`,
      dataset: { tile: k, waits: hints[k].map(([w, n]) => `${w}:${n}`).join(',') },
    }, h('small', { text: t('hint_discard') }), tileEl(k, { size: 'xs' }), h('small', { class: 'arrow', text: t('hint_wait') }));
    for (const [w, n] of hints[k]) {
      entry.append(h('span', { class: 'wait', dataset: { tile: w, unseen: String(n) } },
        tileEl(w, { size: 'xs' }), h('small', { text: t('unseen', { n }) })));
    }
    box.append(entry);
  }
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
      }, suitName(a.suit)));
    }
  }
  // a tile selected by a tap: 打出 discards it (as a second tap on it does)
  checkSelection();
  if (S.selected) {
    const tile = S.selected.tile;
    box.append(h('button', {
      type: 'button', id: 'discard-btn', class: 'act act-discard', dataset: { action: 'discard_selected', actionTile: tile },
      onclick: () => discardTile(tile),
    }, t('discard_btn'), tileEl(tile, { size: 'xs' })));
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
  // a claim answered while its window waits for the others (a seat that may win thinks):
  // said where its buttons were, as the apps do (a blank bar read as a lost tap)
  const mine = S.lastAnswer;
  if (!claims.length && !dq.length && S.view && ['claim', 'rob'].includes(S.view.phase)
    && mine && mine.prompt === S.prompt && mine.action.kind !== 'pass') {
    box.append(h('span', { id: 'claim-wait', class: 'label', dataset: { action: mine.action.kind } },
      t('claim_wait', { action: actionLabel(mine.action) })));
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
/** A kong's kind (豆) in the page's language: 闷豆, "concealed kong (闷豆)". */
const douText = (k) => (DOU_KINDS[k] ? termText(k, DOU_KINDS[k]) : '');

const CHICKEN_OPTIONS = ['wu_gu_ji', 'ben_ji', 'xing_qi_ji', 'chui_feng_ji'];
// Why a tile is a chicken (the settlement's `kind` / `kinds`, spec §9.3, §9.6).
const CHICKEN_REASONS = new Set(['ji', 'chong_feng_ji', 'ze_ren_ji']);

/** `chickenKindText` (i18n.js) with this room's options. */
function chickenKind(d, reason) {
  return chickenKindText(d, reason, S.room && S.room.options);
}

function detailEl(d, reason) {
  if (!d || typeof d !== 'object') return null;
  const box = h('span', { class: 'detail' });
  if (CHICKEN_REASONS.has(reason)) {
    const kind = chickenKind(d, reason);
    if (kind) box.append(h('small', { class: 'ji-kind', text: kind }));
    if (reason !== 'ji' && d.bao_ji) box.append(h('small', { class: 'ji-kind', text: chickenName('包鸡') }));
  } else if (d.kind) box.append(h('small', { text: douText(d.kind) || kindText(d.kind) }));
  if (typeof d.tile === 'string') box.append(tileEl(d.tile, { size: 'xs' }));
  if (d.jin && reason !== 'ji') box.append(h('small', { class: 'badge', text: t('jin') }));
  if (d.suit) box.append(h('small', { text: suitName(d.suit) }));
  if (typeof d.hua_total === 'number') box.append(jintanWinEl(d));
  return box.children.length ? box : null;
}

/** Why a Jintan payer pays, by the win's kind (jintan.md §J7); any other kind: 点炮. */
const JT_PAYER_ROLES = { zi_mo: 'self_draw', gang_kai: 'self_draw', ba_hua: 'self_draw', qiang_gang: 'robbed' };

const WEEKDAYS_EN = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

/** A payment's ``kind``: how the hand was won, else its hand type. */
function kindText(k) { return winKindText(k) || handTypeText(k); }

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
      for (const k of ['how', 'kind', 'method', 'win_kind']) if (winKindText(w[k])) out.push(winKindText(w[k], true));
      for (const k of ['extras', 'flags']) if (Array.isArray(w[k])) w[k].forEach((x) => out.push(winKindText(x, true) || x));
    }
  }
  for (const k of ['win_kind', 'how']) if (typeof s[k] === 'string' && winKindText(s[k])) out.push(winKindText(s[k], true));
  if (s.self_draw === true || s.zi_mo === true) out.push(winKindText('zi_mo'));
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

/** A stored hand the admin corrected (战绩's 查看): its totals count the correction, which
 * its own numbers do not show: '' when there is none. */
function correctionText(c) {
  if (!c) return '';
  if (c.voided) return t('hand_voided_note');
  const moved = (c.adjust || []).map((a, i) => (a ? `${seatName(i)} ${fmtPts(a)}` : '')).filter(Boolean);
  return moved.length ? t('hand_adjusted_note', { list: moved.join(getLang() === 'en' ? '; ' : '；') }) : '';
}

/** 再来一场, or 加入下一场 once the next room is made (the room's ``next``). */
function againLabel() {
  return t(S.room && S.room.next ? 'again_join' : 'again');
}

/** How a vote dissolved the room, as the apps say it: who asked, and who said nothing
 * until its time was up (silence agrees); '' when every seat answered yes. */
function dissolvedHow(r) {
  const silent = (r.votes || []).map((x, i) => (x === null ? i : -1)).filter((i) => i >= 0);
  if (!silent.length) return '';
  const asked = !Number.isInteger(r.proposed) ? ''
    : r.proposed === S.seat ? t('vote_you_proposed') : t('vote_proposed', { name: seatName(r.proposed) });
  return [asked, t('vote_silent_agreed', { names: silent.map(seatName).join('、') })].filter(Boolean).join('；');
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
  // dissolved by a vote some did not answer: said here, where the players look now
  const how = S.dissolved && S.dissolvedBy ? dissolvedHow(S.dissolvedBy) : '';
  if (how) fs.append(h('p', { class: 'muted', id: 'dissolved-how', text: how }));
  // the session is over: the way on (the top bar's 战绩 link stands aside inside a room)
  fs.append(h('div', { class: 'final-links' },
    h('a', { href: './', class: 'ghost btn', id: 'final-lobby', text: t('back_lobby') }),
    h('a', { href: './?records', class: 'ghost btn', id: 'final-records', text: t('records') })));
  return fs;
}

function renderSettlement() {
  const overlay = $('#settlement-overlay');
  const st = S.settlement;
  const standingsOnly = !st && S.sessionOver && S.dissolved;
  const wasHidden = overlay.hidden;
  overlay.hidden = !((st || standingsOnly) && S.settlementOpen);
  $('#settle-dissolve-btn').hidden = !canProposeDissolve();
  // 再来一场 once the session is over: the next room (made by the first to ask), joined
  const again = $('#again-btn');
  again.hidden = !(S.sessionOver && Number.isInteger(S.seat) && S.token);
  again.textContent = againLabel();
  if (!(st || standingsOnly) || !S.settlementOpen) return;
  const body = $('#settlement-body');
  // A settlement opens at its top (title, totals); a re-render while it is open (others
  // getting ready) leaves the reader where they are.
  const key = st ? `hand-${st.handNo}` : 'standings';
  const opened = wasHidden || S.settlementShown !== key;
  S.settlementShown = key;
  if (opened) requestAnimationFrame(() => { body.scrollTop = 0; overlay.scrollTop = 0; });
  // ... and the folds the reader opened (支付明细, 各家手牌, 牌局验证) stay open
  const keepOpen = opened ? [] : [...body.querySelectorAll('details[open][id]')].map((d) => d.id);
  body.replaceChildren();
  const n = nPlayers();
  if (standingsOnly) {
    // dissolved during a hand: nothing was settled, only the session's standings
    body.append(standingsEl(totals())); // (its heading says 本场已解散 · 最终排名)
    $('#ready-btn').hidden = true;
    $('#ready-state').hidden = true;
    return;
  }
  const s = st.settlement || {};
  const result = s.result || (winnersOf(s).length ? 'win' : 'huang_zhuang');
  // opened during the next hand (上局结算): say which hand it was
  const earlier = S.view && S.view.phase && S.view.phase !== 'ended' && typeof st.handNo === 'number';
  const hands = S.room && S.room.options && S.room.options.hands;
  const title = earlier ? `${t('last_settlement')} · ${t('hand_no', { n: st.handNo, m: hands || '?' })}` : t('settlement');
  body.append(h('h2', {}, title, ' ',
    h('span', { id: 'settle-result', class: `result ${result}`, dataset: { result }, text: result === 'win' ? t('result_win') : t('result_huang') })));
  const fixed = correctionText(st.corrected);
  if (fixed) body.append(h('p', { class: 'muted', id: 'settle-corrected', text: fixed }));

  const winners = winnersOf(s);
  const pays = paymentsOf(s);
  // per-seat deltas and totals first, as the apps show them
  const deltas = Array.isArray(s.deltas) ? s.deltas : (() => {
    const d = new Array(n).fill(0);
    for (const p of pays) { d[p.from] -= p.points; d[p.to] += p.points; }
    return d;
  })();
  const tots = Array.isArray(st.totals) ? st.totals : totals();
  const ready = readySeats(s, S.room && S.room.game); // Guiyang's seats marked 叫牌 / 未叫
  const dt = h('table', { id: 'settle-totals', class: 'grid' },
    h('thead', {}, h('tr', {}, h('th', { text: t('seat') }), h('th', { text: t('delta') }), h('th', { text: t('total') }))));
  const tb2 = h('tbody');
  for (let i = 0; i < n; i++) {
    const d = deltas[i] ?? 0;
    const tot = tots[i];
    tb2.append(h('tr', { class: `settle-row ${winners.includes(i) ? 'winner-row' : ''}`, id: `settle-row-${i}`, dataset: { seat: String(i), delta: String(d), total: String(tot ?? '') } },
      h('td', {}, seatName(i), readyMark(ready, i, winners)),
      h('td', { class: `num delta ${d > 0 ? 'pos' : d < 0 ? 'neg' : ''}`, text: fmtPts(d) }),
      h('td', { class: 'num total', text: tot === undefined ? '' : fmtPts(tot) })));
  }
  dt.append(tb2);
  body.append(h('div', { class: 'scroll-x', id: 'settle-totals-box' }, dt));
  const why = huangWhy(result, ready, n, S.room && S.room.game); // 黄庄: why it paid what it paid
  if (why) body.append(h('div', { class: 'settle-line muted', id: 'settle-huang', dataset: { why }, text: t(why) }));

  // winners, each with the winning hand: concealed tiles, melds, the winning tile apart
  if (winners.length) {
    const wl = h('div', { id: 'settle-winners', class: 'settle-block' });
    for (const w of winners) {
      const ht = handTypeOf(s, w);
      const htText = ht ? winnerHandText(ht, w, pays) : '';
      const extras = winExtrasOf(s, w);
      // how it was won (点炮, 自摸, ...) right after the name, then the hand type: each a tag
      // kept whole, so a phone in English wraps between tags, never inside one, and the win's
      // kind stays on the name's line
      wl.append(h('div', { class: 'winner', dataset: { seat: String(w), handType: ht || '' } },
        h('div', { class: 'winner-title' }, h('span', { class: 'label', text: t('winners') }), h('b', { class: 'winner-name', text: seatName(w) }),
          ...extras.map((x) => h('span', { class: 'win-kind', text: x })),
          htText ? h('span', { class: 'hand-type', text: htText }) : null),
        winningHandEl(s, w, pays)));
    }
    body.append(wl);
  }

  if (s.loser !== undefined && s.loser !== null && winners.length) {
    body.append(h('div', { class: 'settle-line', id: 'settle-loser' }, h('span', { class: 'label', text: t(s.win_kind === 'qiang_gang' ? 'loser_robbed' : 'loser_dealt_in') }), seatName(s.loser)));
  }
  if (Array.isArray(s.burned) && s.burned.length) {
    body.append(h('div', { class: 'settle-line' }, h('span', { class: 'label', text: t('shao') }), s.burned.map(seatName).join(', ')));
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
      if (v && v.jin) cl.append(h('span', { class: 'badge', text: chickenName(tile === '8p' ? '金乌骨' : '金鸡') }));
    }
    if (s.chui_feng) cl.append(h('span', { class: 'badge', id: 'settle-chui-feng', text: t('chui_feng_blown') }));
    if (s.weekday && S.room && S.room.options && S.room.options.xing_qi_ji) {
      const day = getLang() === 'zh' ? '一二三四五六日'[s.weekday - 1] : WEEKDAYS_EN[s.weekday - 1];
      cl.append(h('span', { class: 'muted', text: t('weekday_n', { n: getLang() === 'zh' ? day : s.weekday, day }) }));
    }
    body.append(cl);
  }


  // each seat's points explained: grouped lines, then every ledger row (folded)
  body.append(explainEl(s, pays, deltas, n));

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
  body.append(h('details', { id: 'settle-payments-box' }, h('summary', { text: t('payments') }), h('div', { class: 'scroll-x' }, pt)));

  // revealed hands
  if (s.hands && typeof s.hands === 'object') {
    const hw = h('details', { id: 'settle-hands' }, h('summary', { text: t('hands_revealed') }));
    const entries = Array.isArray(s.hands) ? s.hands.map((x, i) => [i, x]) : Object.entries(s.hands);
    for (const [i, tiles] of entries) {
      const list = Array.isArray(tiles) ? tiles : (tiles && (tiles.hand || tiles.tiles)) || [];
      const melds = settledMelds(s, Number(i));
      hw.append(h('div', { class: 'settle-hand' }, h('span', { class: 'label', text: seatName(Number(i)) }),
        ...sortTiles(list).map((tl) => tileEl(tl, { size: 'xs' })), ...(melds.length ? [meldsEl({ melds }, Number(i), true)] : [])));
    }
    body.append(hw);
  }

  if (s.next_dealer !== undefined && s.next_dealer !== null && !S.sessionOver) {
    body.append(h('div', { class: 'settle-line muted', text: `${t('next_dealer')}: ${seatName(s.next_dealer)}` }));
  }
  // the seed, its hash published at the deal and 验证: folded (as 支付明细), for whoever
  // wants to check that the wall was fixed before the hand
  const fair = h('details', { id: 'settle-fair' }, h('summary', { text: t('fair_check') }));
  const seed = s.seed ?? (S.view && S.view.seed);
  if (seed) {
    fair.append(h('div', { class: 'settle-line seed' }, h('span', { class: 'label', text: t('seed') }), h('code', { id: 'settle-seed', text: String(seed) })));
  }
  const seedHash = s.seed_hash ?? (S.view && S.view.seed_hash);
  if (seedHash) {
    fair.append(h('div', { class: 'settle-line seed' }, h('span', { class: 'label', text: t('seed_hash') }), h('code', { text: String(seedHash) })));
  }
  if (seed) { // 验证: rebuild the wall from the seed and compare with the hash published at the deal
    fair.append(verifyEl({ id: 'settle-verify', game: (S.room && S.room.game) || 'guiyang', seed: String(seed), publishedHash: seedHash, players: nPlayers(), dealer: S.view ? S.view.dealer : (s.dealer ?? 0) }));
  }
  if (fair.children.length > 1) body.append(fair);
  const replay = st.msg && st.msg.replay; // the seats' replay link (never sent to spectators)
  // seen from this seat, as the table was (the replay puts it at the bottom)
  const replayUrl = replay && replay.url ? `${replay.url}${Number.isInteger(S.seat) ? `&seat=${S.seat}` : ''}` : null;
  if (replayUrl) body.append(h('div', { class: 'settle-line' }, h('a', { id: 'settle-replay', class: 'replay-link', href: replayUrl, target: '_blank', rel: 'noopener', text: t('replay') })));

  // final standings
  if (S.sessionOver) {
    body.insertBefore(standingsEl(tots), body.children[1] || null); // first thing under the title
  }
  for (const id of keepOpen) {
    const fold = body.querySelector(`details#${id}`);
    if (fold) fold.open = true;
  }
  const rb = $('#ready-btn');
  rb.hidden = S.sessionOver || S.seat === null || S.seat === undefined || earlier; // mid-hand: no 准备
  rb.disabled = S.readySent;
  // this seat's 准备 and the other players' by name (已准备：小美; a bot is always ready, as
  // its seat's 已准备 says)
  const rs = $('#ready-state');
  const bot = (i) => !!(S.room && (S.room.seats || []).some((x) => x && x.seat === i && x.bot));
  const others = S.readySeats.filter((x) => x !== S.seat && !bot(x)).map(seatName);
  const said = [S.readySent ? t('ready_sent') : '', others.length ? t('ready_others', { names: others.join(t('names_sep')) }) : ''].filter(Boolean);
  rs.hidden = !said.length || S.sessionOver;
  rs.textContent = said.join(' · ');
}

// ------------------------------------------------------------------ room rules
// 番 of each hand type (spec §6.2): 一扣二 / 连庄 with the standard or the apps' table, 一扣三.
const FAN_TABLES = {
  standard: { ping_hu: 1, da_dui_zi: 5, qi_dui: 7, long_qi_dui: 10, qing_yi_se: 10, qing_da_dui: 15, qing_qi_dui: 17, qing_long_bei: 20, dan_diao: 7, qing_dan_diao: 17 },
  app: { ping_hu: 1, da_dui_zi: 5, qi_dui: 10, long_qi_dui: 20, qing_yi_se: 10, qing_da_dui: 15, qing_qi_dui: 20, qing_long_bei: 30, dan_diao: 10, qing_dan_diao: 20 },
  yi_kou_san: { ping_hu: 3, da_dui_zi: 8, qi_dui: 12, long_qi_dui: 20, qing_yi_se: 12, qing_da_dui: 20, qing_qi_dui: 24, qing_long_bei: 36, dan_diao: 12, qing_dan_diao: 24 },
};

function fanTable(o) {
  if (o.scoring === 'yi_kou_san') return FAN_TABLES.yi_kou_san;
  return o.fan_table === 'app' ? FAN_TABLES.app : FAN_TABLES.standard;
}

/** `label：value` with the page language's colon (full-width in Chinese). */
const labelled = (label, value) => `${label}${getLang() === 'zh' ? '：' : ': '}${value}`;

/** The room's rules, complete and in the page's language, reachable at any time (规则). */
function rulesEl(room) {
  const o = (room && room.options) || {};
  const box = h('div', { id: 'rules-body' });
  const onOff = (b) => t(b ? 'on' : 'off');
  const section = (key, items) => {
    const ul = h('ul', { class: 'rules-list' });
    for (const [rule, text] of items) ul.append(h('li', { dataset: { rule } }, text));
    box.append(h('section', { class: 'rules-section', dataset: { section: key } }, h('h3', { text: t(key) }), ul));
  };
  // the 番 table: pattern -> 番, named by `name`, under `title` (and a `note`)
  const fanSection = (fans, name, title, note = null) => {
    const tb = h('tbody');
    for (const [k, v] of Object.entries(fans)) {
      tb.append(h('tr', { dataset: { handType: k, fan: String(v) } }, h('td', { text: name(k) }), h('td', { class: 'num', text: String(v) })));
    }
    const tbl = h('table', { class: 'grid rules-fan', id: 'rules-fan' },
      h('thead', {}, h('tr', {}, h('th', { text: t('hand_type') }), h('th', { text: t('fan') }))), tb);
    box.append(h('section', { class: 'rules-section', dataset: { section: 'r_fan' } },
      h('h3', { text: title }), tbl, note ? h('p', { class: 'muted', text: note }) : null));
  };
  if (room && room.game === 'jintan') {
    section('r_game', [
      ['game', t('game_jintan')],
      ['base', `${t('jt_base')} ${o.base}`], ['flower_value', `${t('jt_flower_value')} ${o.flower_value}`],
      ['chow', o.chow ? t('jt_chow') : t('jt_no_chow')], ['hands', t('hands_n', { n: o.hands })],
    ]);
    // how a win is counted (jintan.md §J4-§J8), with this room's 底数 and 花分值
    section('r_jt_hua', [
      ['flower', t('jh_flower')], ['honour_triplet', t('jh_honour_triplet')],
      ['honour_kong', t('jh_honour_kong')], ['number_kong', t('jh_number_kong')],
      ['bu_hua', t('jh_bu_hua')],
    ]);
    fanSection(JT_FANS, fanName, t('r_fan'), t('jt_fan_sum'));
    section('r_jt_points', [
      ['formula', t('jp_formula', { base: o.base, value: o.flower_value })], ['yi_hua', t('jp_yi_hua')],
      ['self_draw', t('jp_self_draw')], ['discard', t('jp_discard')], ['rob', t('jp_rob')],
      ['ba_hua', t('jp_ba_hua')], ['dealer', t('jp_dealer')],
    ]);
  } else {
    const pl = { 4: t('players_4'), 3: t('players_3'), 2: t('players_2') }[o.players] || String(o.players);
    section('r_game', [
      ['players', pl], ['hands', t('hands_n', { n: o.hands })],
      ['scoring', t(`scoring_${o.scoring || 'yi_kou_er'}`)],
      ['base_points', `${t('base_points')} ${o.base_points ?? 1}`],
    ]);
    fanSection(fanTable(o), handTypeText,
      `${t('r_fan')} (${o.fan_table === 'app' && o.scoring !== 'yi_kou_san' ? t('fan_app') : t('fan_standard')})`);
    const extras = [];
    if (o.scoring !== 'yi_kou_san') extras.push(['zi_mo', t('x_zi_mo')]);
    else extras.push(['zi_mo', t('x_zi_mo_none')]);
    extras.push(['gang_kai', t('x_gang_kai')], ['re_pao', t('x_re_pao')], ['qiang_gang', t('x_qiang_gang')],
      ['ruan_bao', t('x_ruan_bao')], ['ying_bao', t('x_ying_bao')], ['sha_bao', t('x_sha_bao')]);
    if (o.scoring === 'lian_zhuang') extras.push(['lian_zhuang', t('x_lian_zhuang')]);
    extras.push(['tong_xing', t('x_tong_xing')]);
    section('r_extras', extras);
    const dou = o.dou_values === 'all_three' ? { men_dou: 3, zhuan_wan_dou: 3, ming_dou: 3 } : { men_dou: 2, zhuan_wan_dou: 3, ming_dou: 1 };
    section('r_dou', [
      ['men_dou', t('d_men_dou', { n: dou.men_dou })], ['zhuan_wan_dou', t('d_zhuan_wan_dou', { n: dou.zhuan_wan_dou })],
      ['ming_dou', t('d_ming_dou', { n: dou.ming_dou })], ['dou_ready', t('d_ready')],
    ]);
    const ji = [
      ['yao_ji', t('j_yao_ji')],
      ['fan_pai_ji', o.yao_bai_ji ? t('j_yao_bai_ji') : t('j_fan_pai_ji')],
      ['jin_ji', t('j_jin_ji')], ['chong_feng_ji', t('j_chong_feng_ji')], ['ze_ren_ji', t('j_ze_ren_ji')],
      ['man_tang_ji', o.man_tang_ji === false ? t('j_shou_shang_ji') : t('j_man_tang_ji')],
      ['bao_ji', t('j_bao_ji')],
    ];
    for (const k of CHICKEN_OPTIONS) if (o[k]) ji.push([k, t(`j_${k}`)]);
    section('r_chickens', ji);
    const claims = [
      ['multiple_winners', labelled(t('multiple_winners'), onOff(o.multiple_winners !== false))],
      ['pass_pong_lock', labelled(t('pass_pong_lock'), onOff(!!o.pass_pong_lock))],
      ['guo_hu', t('c_guo_hu')],
    ];
    if (o.players === 3 || o.players === 2) claims.push(['ding_que', t('c_ding_que')]);
    section('r_claims', claims);
  }
  section('r_timers', [
    ['turn_seconds', `${t('turn_seconds')} ${o.turn_seconds ?? '-'}s`],
    ['claim_seconds', `${t('claim_seconds')} ${o.claim_seconds ?? '-'}s`],
    ['bank_seconds', `${t('bank_seconds')} ${o.bank_seconds ?? 0}s`],
  ]);
  return box;
}

/** ‹ (the brand: back to the lobby) asks first while the player's hand is in play, as the
 *  apps do: the seat stays and its timer plays for it, which a stray tap should not start.
 *  Between hands, in the lobby or watching, it goes at once. */
function bindLeave() {
  const overlay = $('#leave-overlay');
  const close = () => { overlay.hidden = true; };
  $('#home-link').addEventListener('click', (e) => {
    const inHand = S.seat !== null && S.seat !== undefined && !S.sessionOver && S.room && S.room.status === 'playing'
      && S.view && S.view.phase !== 'ended';
    if (!inHand || e.ctrlKey || e.metaKey || e.shiftKey) return; // (a new tab leaves nothing)
    e.preventDefault();
    overlay.hidden = false;
    $('#leave-stay').focus();
  });
  $('#leave-stay').addEventListener('click', close);
  overlay.addEventListener('click', (e) => { if (e.target === overlay) close(); });
  overlay.addEventListener('keydown', (e) => { if (e.key === 'Escape') close(); });
  $('#leave-go').addEventListener('click', () => { window.location.href = $('#home-link').href; });
}

function renderRules() {
  const overlay = $('#rules-overlay');
  if (!overlay) return;
  overlay.hidden = !S.rulesOpen;
  const btn = $('#rules-btn');
  if (btn) btn.hidden = !S.room;
  if (!S.rulesOpen) return;
  $('#rules-body').replaceWith(rulesEl(S.room));
}

/** The winning tile of ``w`` (the ``tile`` of its 胡 payments). */
function winTileOf(pays, w) {
  const p = pays.find((x) => x.reason === 'hu' && x.to === w && x.detail && x.detail.tile);
  return p ? p.detail.tile : null;
}

/** ``tiles`` less one copy of ``tile`` (a winner's hand less its winning tile, shown apart);
 *  a copy of ``tiles`` when it holds none. */
function withoutOne(tiles, tile) {
  const out = [...tiles];
  const k = tile ? out.lastIndexOf(tile) : -1;
  if (k >= 0) out.splice(k, 1);
  return out;
}

/** Seat ``i``'s melds at the hand's end: the settlement's (a stored one, opened from 战绩,
 *  has no table view beside it), else (settlements from before it carried them) the view's. */
function settledMelds(s, i) {
  const melds = Array.isArray(s.melds) ? s.melds[i] : seatView(i).melds;
  return Array.isArray(melds) ? melds : [];
}

/** A winner's hand as it won: concealed tiles sorted, the melds, the winning tile apart
 *  and highlighted, and (Jintan) the flowers it laid, which count in its 花. */
function winningHandEl(s, w, pays) {
  const hands = Array.isArray(s.hands) ? s.hands : [];
  const winTile = winTileOf(pays, w);
  const tiles = withoutOne(hands[w] || [], winTile);
  const box = h('div', { class: 'win-hand', dataset: { seat: String(w), winTile: winTile || '' } });
  const conc = h('span', { class: 'win-concealed' });
  for (const tl of sortTiles(tiles)) conc.append(tileEl(tl, { size: 'sm' }));
  box.append(conc);
  const melds = settledMelds(s, w);
  if (melds.length) box.append(meldsEl({ melds }, w, true));
  if (winTile) box.append(tileEl(winTile, { size: 'sm', classes: ['win-tile'] }));
  const flowers = Array.isArray(s.flowers) ? s.flowers[w] : null;
  if (Array.isArray(flowers) && flowers.length) box.append(flowersEl({ flowers }));
  return box;
}

/** The group a payment belongs to in a seat's explanation, and its label parts. */
function groupOf(p) {
  const d = p.detail || {};
  switch (p.reason) {
    case 'hu': return { key: `hu|${p.to}`, sub: '' };
    case 'dou': return { key: `dou|${d.kind}|${d.tile}`, sub: douText(d.kind) || d.kind || '', tile: d.tile, kind: d.kind };
    case 'ji': case 'chong_feng_ji': case 'ze_ren_ji':
      // where the tiles lie (手上 / 碰杠里 / 河里, `at`; 满堂鸡 counts the river) apart
      return { key: `${p.reason}|${d.tile}|${d.kind}|${!!d.jin}|${!!d.bao_ji}|${d.at || ''}`, sub: [chickenKind(d, p.reason), p.reason !== 'ji' && d.bao_ji ? chickenName('包鸡') : ''].filter(Boolean).join(' · '), tile: d.tile, kind: d.kind, jin: !!d.jin, baoJi: !!d.bao_ji, perTile: p.reason === 'ji', at: d.at || '' };
    // (the void suit, and 查缺's count, are the payer's or the payee's own: see explainEl)
    case 'cha_que': case 'yuan_que': return { key: p.reason, sub: '' };
    default: return { key: p.reason, sub: '' };
  }
}

/** A group's words from each line's detail (``textOf``): under its title when every line
 *  says the same, else beside each other seat's name (``g.otherText``). */
function sayOnce(g, what, textOf) {
  const texts = new Set([...g.details.values()].map(textOf));
  if (texts.size > 1) g.otherText = textOf;
  else if (texts.size === 1 && [...texts][0]) what.append(h('small', { class: 'sg-sub', text: [...texts][0] }));
}

/** The parts of a 胡 payment (hand type, 自摸, 杠开, 热炮, 软报, 连庄 +N), from its detail. */
function huParts(d) {
  if (Array.isArray(d.parts)) return d.parts.map(([k, v]) => [k, v]);
  const out = [[d.hand_type, d.fan]];
  for (const e of d.extras || []) out.push([e, { zi_mo: 1, gang_kai: 1, re_pao: 1, ruan_bao: 10 }[e] ?? 0]);
  if (d.streak) out.push(['lian_zhuang', d.streak]);
  return out;
}

function partLabel(k) {
  const key = `p_${k}`;
  const label = t(key);
  if (label !== key) return label;
  return kindText(k);
}

/** Each seat's points explained (the apps' 结算明细): the seat's total first, then its
 *  lines grouped: 胡 with its parts, 豆 by kind, 鸡 by kind (金 marked, per tile), 查叫 /
 *  查缺 / 原缺 / 包鸡, and 烧. Points read from the ledger rows, nothing recomputed. */
function explainEl(s, pays, deltas, n) {
  const box = h('div', { id: 'settle-explain' }, h('h3', { text: t('s_by_seat') }));
  const burned = new Set(Array.isArray(s.burned) ? s.burned : []);
  const base = (S.room && S.room.options && S.room.options.base_points) || 1;
  for (let i = 0; i < n; i++) {
    const d = deltas[i] ?? 0;
    const blk = h('section', { class: `settle-seat ${(s.winners || []).includes(i) ? 'winner-seat' : ''}`, dataset: { seat: String(i), delta: String(d) } },
      h('div', { class: 'settle-seat-head' }, h('b', { text: seatName(i) }),
        h('span', { class: `num delta ${d > 0 ? 'pos' : d < 0 ? 'neg' : ''}`, text: fmtPts(d) })));
    // its points by reason first (胡 +4 · 鸡 +3 · 豆 -1), then each group's lines
    const sums = reasonNetsEl(pays, i, 'settle-seat-sums');
    if (sums) blk.append(sums);
    const groups = new Map();
    for (const p of pays) {
      if (p.to !== i && p.from !== i) continue;
      const dir = p.to === i ? 1 : -1;
      const g = groupOf(p);
      const key = `${dir}|${g.key}`;
      if (!groups.has(key)) groups.set(key, { ...g, dir, reason: p.reason, total: 0, by: new Map(), linesBy: new Map(), details: new Map(), first: p });
      const e = groups.get(key);
      e.total += dir * p.points;
      const other = dir > 0 ? p.from : p.to;
      e.by.set(other, (e.by.get(other) || 0) + p.points);
      if (!e.details.has(other)) e.details.set(other, p.detail || {});
      e.linesBy.set(other, (e.linesBy.get(other) || 0) + 1); // per-tile 鸡: one line a tile
    }
    const rows = [...groups.values()].sort((a, b) => (REASON_ORDER.indexOf(a.reason) - REASON_ORDER.indexOf(b.reason)) || (b.dir - a.dir));
    const list = h('ul', { class: 'sgroups' });
    for (const g of rows) {
      const li = h('li', { class: `sgroup ${g.dir > 0 ? 'in' : 'out'}`, dataset: { reason: g.reason, dir: g.dir > 0 ? 'in' : 'out', points: String(g.total), kind: g.kind || '', tile: g.tile || '', at: g.at || '', bao: String(!!g.baoJi) } });
      const what = h('span', { class: 'sg-what' }, h('b', { text: reasonText(g.reason) }));
      // each holder's count by its name when they differ, and whenever the tiles are the
      // others' (paid to them, or 包鸡 paid by them): a count alone reads as this seat's own
      const othersTiles = (g.dir < 0) !== g.baoJi;
      // where a chicken's tiles lie: 手上 / 碰杠里 / 河里, 他家… when they are the others'
      const at = g.at ? t(`ji_at_${g.at}${othersTiles ? '_theirs' : ''}`) : '';
      const sub = [g.sub, at].filter(Boolean).join(' · ');
      if (sub) what.append(h('small', { class: 'sg-sub', text: sub }));
      if (g.tile) what.append(tileEl(g.tile, { size: 'xs' }));
      if (g.jin) what.append(h('small', { class: 'badge jin', dataset: { jin: 'true' }, text: t('jin') }));
      const dd = g.first.detail || {};
      const perOther = g.perTile && (new Set(g.linesBy.values()).size > 1 || othersTiles);
      if (g.reason === 'hu' && typeof dd.hua_total === 'number') {
        // Jintan: a payer's line says why it pays (点炮 / 被自摸 / 被抢杠, which pays three
        // shares), then the winner's 花 and 番 it pays for
        if (g.dir < 0) {
          const role = JT_PAYER_ROLES[dd.win] || 'dealt_in';
          what.append(h('small', { class: 'sg-sub jt-role', dataset: { role }, text: t(`jt_pay_${role}`) }));
        }
        what.append(jintanWinEl(dd));
      } else if (g.reason === 'hu') {
        // the parts, in 底分: hand type 番, then each extra
        const parts = h('span', { class: 'sg-parts' });
        const winnerDetail = dd;
        const all = huParts(winnerDetail);
        // 连庄 +N only on payments with the dealer: show it when any line of the group has
        // it, marked 庄家 when the group's other lines go without it (a non-dealer's win)
        const lines = pays.filter((x) => x.reason === 'hu' && ((g.dir > 0 && x.to === i) || (g.dir < 0 && x.from === i && x.to === g.first.to)));
        const streaks = lines.map((x) => (x.detail && x.detail.streak) || 0);
        const streak = Math.max(0, ...streaks);
        const dealerOnly = streak > 0 && streaks.some((x) => !x);
        const shown = all.filter(([k]) => k !== 'lian_zhuang');
        if (streak) shown.push(['lian_zhuang', streak]);
        shown.forEach(([k, v], idx) => {
          const only = k === 'lian_zhuang' && dealerOnly;
          parts.append(h('span', { class: 'part', dataset: { part: idx === 0 ? 'hand_type' : k, name: k, points: String(v), dealerOnly: String(only) } },
            `${idx ? '+' : ''}${k === 'zi_mo' && s.win_kind === 'qiang_gang' ? t('p_zi_mo_robbed') : partLabel(k)} ${v}${only ? t('s_dealer_only') : ''}`));
        });
        if ((winnerDetail.times || 1) > 1) parts.append(h('span', { class: 'part', dataset: { part: 'times', points: String(winnerDetail.times) } }, t('s_times', { n: winnerDetail.times })));
        if (base > 1) parts.append(h('span', { class: 'part', dataset: { part: 'base', points: String(base) } }, t('s_base', { n: base })));
        what.append(parts);
      } else if (g.perTile) {
        // N张 when it is the same with every other seat (a holder is paid N by each); a seat
        // paying holders of different counts sees each holder's count on its line below
        const each = g.first.points;
        const count = perOther ? null : [...g.linesBy.values()][0];
        const text = count === null ? t('s_per_tile', { n: each }) : `${t('s_tiles', { n: count })} · ${t('s_per_tile', { n: each })}`;
        what.append(h('small', { class: 'sg-count', dataset: { count: count === null ? '' : String(count), each: String(each) } }, text));
      } else if (g.reason === 'cha_jiao' && typeof dd.ready_value === 'number') {
        // the ready seat's 番 (and 连庄) each line pays for: under the title when every line
        // of the group has the same, else on each line (a seat not ready pays each ready
        // seat its own value)
        // (the best hand waited for is named: 叫牌 七对 7番; a stored hand may lack it)
        sayOnce(g, what, (x) => (x.ready_type ? t('s_ready_type', { type: partLabel(x.ready_type), n: x.ready_value }) : t('s_ready_value', { n: x.ready_value }))
          + (x.streak ? ` +${t('p_lian_zhuang')} ${x.streak}` : ''));
      } else if (g.reason === 'cha_que' || g.reason === 'yuan_que') {
        // the void suit (缺万) and 查缺's count of its tiles are each payer's (查缺) or payee's
        // (原缺) own: under the title when every line has the same, else on each line
        sayOnce(g, what, (x) => [x.suit ? `${t('que')}${suitName(x.suit)}` : '',
          typeof x.tiles === 'number' ? t('s_void_tiles', { n: x.tiles }) : ''].filter(Boolean).join(' · '));
      }
      const who = h('span', { class: 'sg-who' });
      for (const [other, pts] of g.by) {
        const n = g.linesBy.get(other);
        who.append(h('span', { class: 'sg-other', dataset: { seat: String(other), points: String(pts), count: g.perTile ? String(n) : '' } },
          // the points apart from the name: "→ Bot 3 2" read as Bot 32
          `${g.dir > 0 ? '←' : '→'} ${seatName(other)}${perOther ? ` (${t('s_tiles', { n })})` : ''}${g.otherText ? ` (${g.otherText(g.details.get(other))})` : ''} · `,
          h('b', { class: 'sg-pts', text: String(pts) })));
      }
      li.append(what, who, h('span', { class: `num sg-total ${g.dir > 0 ? 'pos' : 'neg'}`, text: fmtPts(g.total) }));
      list.append(li);
    }
    if (burned.has(i)) list.append(h('li', { class: 'sgroup burned', dataset: { reason: 'shao' } }, h('span', { class: 'sg-what' }, h('b', { text: t('shao') }), h('small', { class: 'sg-sub', text: t('s_burned') }))));
    if (!list.children.length) list.append(h('li', { class: 'sgroup muted', text: t('no_payments') }));
    blk.append(list);
    box.append(blk);
  }
  return box;
}

// ------------------------------------------------------------------ dissolve vote
function voteSend(agree) {
  if (S.socket && S.socket.sendAnswered({ type: 'dissolve', agree })) {
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
    // alone with bots a hand in play is finished first (the room refuses: hand_with_bots)
    const humans = ((S.room && S.room.seats) || []).filter((x) => x && !x.bot).length;
    // (a hand ended is no hand in play, though the polled status may still say playing)
    const inPlay = S.room && S.room.status === 'playing' && !(S.view && S.view.phase === 'ended');
    const refused = humans === 1 && inPlay;
    box.append(
      h('h2', { id: 'vote-title', text: t('dissolve_title') }),
      h('p', { class: 'vote-text', id: 'dissolve-text', dataset: { refused: String(refused) }, text: t(refused ? 'dissolve_after_hand' : 'dissolve_text') }),
      h('div', { class: 'vote-actions' },
        refused ? null : h('button', { type: 'button', id: 'dissolve-confirm', class: 'primary danger', onclick: () => {
          S.confirmDissolve = false;
          S.voteSent = false;
          voteSend(true);
        } }, t('dissolve_propose')),
        h('button', { type: 'button', id: 'dissolve-cancel', class: 'ghost', onclick: () => {
          S.confirmDissolve = false;
          renderVote();
        } }, t(refused ? 'close' : 'cancel'))),
    );
    return;
  }
  if (mode === 'open') {
    const votes = Array.isArray(v.votes) ? v.votes : [];
    box.append(h('h2', { id: 'vote-title' }, t('vote_title'),
      h('span', { id: 'vote-countdown', class: 'countdown-chip', dataset: { seconds: '' } })));
    // who asked, as the apps say it (玩家 X 申请解散房间)
    if (Number.isInteger(v.proposed)) {
      const who = v.proposed === S.seat ? t('vote_you_proposed') : t('vote_proposed', { name: seatName(v.proposed) });
      box.append(h('p', { class: 'vote-text', id: 'vote-proposer', dataset: { seat: String(v.proposed) }, text: who }));
    }
    const ul = h('ul', { id: 'vote-list' });
    votes.forEach((x, i) => {
      const state = x === true ? 'agree' : x === false ? 'refuse' : 'pending';
      const label = x === true ? t('vote_agree') : x === false ? t('vote_refuse') : t('vote_pending');
      ul.append(h('li', { class: `vote-${state}`, dataset: { seat: String(i), vote: state } },
        h('b', { text: seatName(i) }), h('span', { class: 'vote-mark', text: `${x === true ? '✓' : x === false ? '✗' : '…'} ${label}` })));
    });
    // as the apps: silence agrees (a player who is away cannot hold the table)
    box.append(ul, h('p', { class: 'muted', id: 'vote-silence', text: t('vote_silence') }));
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
  if (r.result === 'dissolved') text = dissolvedHow(r) || t('vote_dissolved');
  else if (r.result === 'refused') {
    const who = (r.votes || []).indexOf(false);
    text = who >= 0 ? t('vote_refused', { name: seatName(who) }) : t('vote_refused_anon');
  } else text = t('vote_finished');
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
  el.title = text; // a phone shows "connected" as a dot only, the others as a mark (style.css)
  // ... and says the words over the table instead (a phone only: style.css)
  const banner = $('#conn-banner');
  const down = S.conn === 'reconnecting' || S.conn === 'closed'; // not the first connecting
  banner.hidden = !down || !!S.replaced;
  banner.dataset.state = S.conn;
  if (banner.textContent !== text) banner.textContent = text;
}

// ------------------------------------------------------------------ countdown
/** The prompt's deadline and, with a time bank, where its own limit ends (`bank_from`). */
function setDeadline(msg) {
  S.deadline = msg.deadline;
  S.bankFrom = msg.bank_from ?? null;
}

/** The countdown shown: seconds to the prompt's own limit, then (on the bank) the bank's
 *  seconds left, marked as such (时间银行), as the apps count them. */
function countdownNow() {
  const now = Date.now();
  const bank = !!S.bankFrom && now >= S.bankFrom;
  const end = S.bankFrom && !bank ? S.bankFrom : S.deadline;
  const secs = Math.max(0, Math.ceil((end - now) / 1000));
  // another seat's turn past its limit is on that seat's time bank, whose seconds only it is
  // shown (a bank spent in a claim window would tell who could claim): 时间银行, not 0s
  const theirs = !S.bankFrom && secs === 0 && S.view && S.view.phase === 'turn' && S.view.turn !== S.seat
    && ((S.room && S.room.options && S.room.options.bank_seconds) || 0) > 0;
  const text = theirs ? t('bank_short') : bank ? `${t('bank_short')} ${secs}s` : `${secs}s`;
  return { secs, bank: bank || theirs, left: Math.max(0, Math.ceil((S.deadline - now) / 1000)), text };
}

function tick() {
  if (S.conn === 'reconnecting') renderConnText();
  // a seat kept for the last session's player (再来一场): how long it still waits for them
  document.querySelectorAll('#seat-list .held-left[data-until]').forEach((el) => {
    const until = Number(el.dataset.until);
    const text = until ? ` · ${Math.max(0, Math.ceil((until - Date.now()) / 1000))}s` : '';
    if (el.textContent !== text) el.textContent = text;
  });
  const vc = $('#vote-countdown');
  if (vc && S.vote && S.vote.deadline) {
    const vs = Math.max(0, Math.ceil((S.vote.deadline - Date.now()) / 1000));
    vc.textContent = `${vs}s`;
    vc.dataset.seconds = String(vs);
    vc.classList.toggle('urgent', vs <= 10);
  }
  // a refused vote's note goes away by itself
  if (S.voteResult && S.voteResult.result !== 'dissolved' && Date.now() - S.voteResult.at > 6000) {
    S.voteResult = null;
    renderVote();
  }
  const el = $('#countdown');
  if (!el) return;
  document.querySelectorAll('.seat-countdown').forEach((x) => { x.textContent = ''; });
  const v = S.view;
  tickReady(v);
  if (!v || !S.deadline || v.phase === 'ended' || S.replaced) {
    el.textContent = '';
    el.dataset.seconds = '';
    return;
  }
  // a seat on 托管 plays its move at once: its second-long "deadline" is no countdown to show
  const acting = actingSeats();
  if (acting.length && acting.every((i) => isAuto(i, (v.seats || [])[i]))) {
    for (const x of [el, $('#claim-countdown')].filter(Boolean)) {
      x.textContent = '';
      x.dataset.seconds = '';
    }
    return;
  }
  const { secs, bank, left, text } = countdownNow();
  countdownSound(left);
  el.dataset.seconds = String(secs);
  el.dataset.bank = String(bank);
  el.textContent = text;
  el.classList.toggle('urgent', left <= 5);
  for (const i of actingSeats()) {
    document.querySelectorAll(`.seat-countdown[data-seat="${i}"]`).forEach((x) => { x.textContent = text; });
  }
  const cc = $('#claim-countdown');
  if (cc) {
    cc.textContent = text;
    cc.dataset.seconds = String(secs);
    cc.dataset.bank = String(bank);
    cc.classList.toggle('urgent', left <= 3);
  }
}

/** The ready countdown between hands: in the settlement, and on the table once that is
 *  closed (a 准备 button with the seconds left, as the apps put it), urgent and ticking in
 *  its last 5 s for a seat that is not ready yet (the next hand is dealt all the same). */
function tickReady(v) {
  const rc = $('#ready-countdown');
  const tb = $('#table-ready-btn');
  const between = !!(v && v.phase === 'ended' && S.deadline && !S.sessionOver && !S.replaced);
  const secs = between ? Math.max(0, Math.ceil((S.deadline - Date.now()) / 1000)) : 0;
  const seated = S.seat !== null && S.seat !== undefined;
  // an open dissolve vote holds the deal (its countdown would sit at 0s): said instead
  const voting = between && !!S.vote;
  const urgent = between && seated && !S.readySent && secs <= 5 && !voting;
  const next = voting ? t('next_after_vote') : t('next_hand_in', { n: secs });
  rc.textContent = between && S.settlementOpen ? next : ''; // a bare "27s" said nothing to a spectator
  rc.dataset.seconds = between ? String(secs) : '';
  rc.classList.toggle('urgent', urgent);
  // once the session is over and its standings are closed, the same place offers 再来一场
  const again = S.sessionOver && Number.isInteger(S.seat) && !!S.token && !S.settlementOpen && !S.replaced;
  tb.hidden = !((between && seated && !S.settlementOpen && !S.readySent) || again);
  const label = again ? againLabel() : voting ? 'vote' : '';
  // (the standings' own 再来一场 follows the room's next as this one does, every second)
  const standingsAgain = $('#again-btn');
  if (!standingsAgain.hidden && standingsAgain.textContent !== againLabel()) standingsAgain.textContent = againLabel();
  // made again when its seconds, its label or the language change (a switch shows at once)
  if (!tb.hidden && (tb.dataset.seconds !== String(secs) || tb.dataset.lang !== getLang() || tb.dataset.label !== label)) {
    tb.replaceChildren(...(again ? [h('b', { text: label })] : [h('b', { text: t('ready') }), h('small', { text: next })]));
    tb.dataset.seconds = String(secs);
    tb.dataset.lang = getLang();
    tb.dataset.label = label;
    tb.dataset.mode = again ? 'again' : 'ready';
    tb.classList.toggle('urgent', urgent);
  }
  if (urgent && secs > 0) {
    const key = `ready:${S.room ? S.room.hand_no : ''}:${secs}`;
    if (S.tickSoundKey !== key) { S.tickSoundKey = key; playSound('tick'); }
  }
}

// ------------------------------------------------------------------ social: sound, 快捷语,
// spectators, lobby bots, a replaced tab (issue 13). Kept together so it merges apart.

// A bot's name as this UI shows it: botName (i18n.js), 机器人1..4 by seat.

/** Sounds for a message just handled (`fresh`: it was new, not one a snapshot covered): a
 *  discard, pong, kong or win event; your turn (a new prompt with something to do). */
function afterMessage(msg, fresh) {
  if (msg.type === 'phrase') { onPhrase(msg); return; }
  if (!fresh) return;
  if (msg.type === 'event' || msg.type === 'hand_end') {
    // one sound per change: that of its first event that has one
    const sounds = { discard: 'discard', pong: 'pong', kong: 'kong', win: 'win' };
    const ev = eventsOf(msg).find((e) => sounds[e.type]);
    if (ev) playSound(sounds[ev.type]);
  }
  if (msg.type === 'event' || msg.type === 'snapshot') {
    const mine = S.seat !== null && S.seat !== undefined && S.legal.length > 0 && !S.sessionOver;
    if (mine && S.prompt !== S.turnSoundPrompt) {
      S.turnSoundPrompt = S.prompt;
      playSound('turn');
    }
  }
}

/** One tick a second in the last 5 seconds of this seat's own decision. */
function countdownSound(secs) {
  const mine = S.seat !== null && S.seat !== undefined && S.legal.length > 0 && !S.pending;
  // after the prompt's your-turn sound (the render of the message that opened it comes first)
  if (!mine || secs > 5 || secs <= 0 || S.turnSoundPrompt !== S.prompt) return;
  const key = `${S.prompt}:${secs}`;
  if (S.tickSoundKey === key) return;
  S.tickSoundKey = key;
  playSound('tick');
}

/** A newer tab took this seat (close 4409): stop the countdown and the actions, say why. */
function onReplaced() {
  S.replaced = true;
  S.deadline = null;
  S.legal = [];
  S.pending = false;
  renderAll(); // the banner says why (no toast on top of it)
}

// ---- 快捷语
const bubbles = new Map(); // seat -> {phrase, until}

function onPhrase(msg) {
  if (typeof msg.seat !== 'number' || !phraseText(msg.phrase, getLang())) return;
  bubbles.set(msg.seat, { phrase: msg.phrase, until: Date.now() + BUBBLE_MS });
  renderBubbles();
  clearTimeout(onPhrase._t);
  onPhrase._t = setTimeout(renderBubbles, BUBBLE_MS + 50);
}

function sendPhrase(id) {
  if (!S.socket || S.seat === null || S.seat === undefined) return;
  if (S.phraseUntil && Date.now() < S.phraseUntil) return;
  if (S.socket.send({ type: 'phrase', phrase: id })) {
    S.phraseUntil = Date.now() + PHRASE_SECONDS * 1000;
    S.phraseOpen = false;
    renderPhrasePanel();
    setTimeout(renderPhrasePanel, PHRASE_SECONDS * 1000 + 50);
  } else {
    toast(t('conn_reconnecting'));
  }
}

/** The panels where seat `i` sits: its table panel and its line in the waiting room. */
function seatTargets(i) {
  const out = [];
  if (i === S.seat) out.push($('#my-head'));
  else out.push(document.querySelector(`#opponents .seat-panel[data-seat="${i}"] .seat-head`));
  out.push(document.querySelector(`#seat-list li[data-seat="${i}"]`));
  return out.filter((el) => el && el.offsetParent !== null);
}

function renderBubbles() {
  document.querySelectorAll('.phrase-bubble').forEach((el) => el.remove());
  const now = Date.now();
  for (const [seat, b] of bubbles) {
    if (b.until <= now) { bubbles.delete(seat); continue; }
    for (const target of seatTargets(seat)) {
      const emote = isEmote(b.phrase);
      target.append(h('span', {
        class: `phrase-bubble ${emote ? 'emote' : ''}`, role: 'status',
        dataset: { seat: String(seat), phrase: b.phrase },
        'aria-label': phraseText(b.phrase, getLang()),
        text: emote ? null : phraseText(b.phrase, getLang()),
      }, emote ? emoteSvg(b.phrase) : null));
    }
  }
}

function renderPhrasePanel() {
  const btn = $('#phrase-btn');
  const panel = $('#phrase-panel');
  const seated = S.seat !== null && S.seat !== undefined && !S.replaced && !!S.code;
  btn.hidden = !seated;
  const cooling = !!(S.phraseUntil && Date.now() < S.phraseUntil);
  btn.disabled = cooling;
  panel.hidden = !(seated && S.phraseOpen);
  if (panel.hidden) return;
  panel.replaceChildren();
  const en = getLang() === 'en';
  const list = h('div', { class: 'phrase-list' });
  for (const p of PHRASES) {
    list.append(h('button', { type: 'button', class: 'phrase', dataset: { phrase: p.id }, disabled: cooling, onclick: () => sendPhrase(p.id) }, en ? p.en : p.zh));
  }
  const emotes = h('div', { class: 'emote-list' });
  for (const e of EMOTES) {
    emotes.append(h('button', { type: 'button', class: 'emote', dataset: { phrase: e.id }, title: en ? e.en : e.zh, 'aria-label': en ? e.en : e.zh, disabled: cooling, onclick: () => sendPhrase(e.id) }, emoteSvg(e.id)));
  }
  const head = h('div', { class: 'phrase-head' }, h('b', { text: t('phrases') }),
    h('button', { type: 'button', id: 'phrase-close', class: 'ghost small', 'aria-label': t('close'), onclick: () => { S.phraseOpen = false; renderPhrasePanel(); } }, '×'));
  panel.append(head, list, emotes);
}

// ---- spectators
/** A room link without a seat in this browser: offer to watch room ``code`` (观战) once it
 *  is known to exist, or, ``ended``, its results (查看结果: the spectator's table shows an
 *  ended session's standings). */
function offerSpectate(code, ended = false) {
  const btn = $('#spectate-btn');
  btn.hidden = true;
  btn.dataset.code = code;
  btn.dataset.i18n = ended ? 'see_results' : 'spectate';
  btn.textContent = t(btn.dataset.i18n);
  if (store.seat(code)) return;
  api.room(code).then(() => {
    if ($('#join-code').value.trim().toUpperCase() === code && !$('#lobby').hidden) btn.hidden = false;
  }).catch(() => {});
}

function spectate() {
  const code = $('#spectate-btn').dataset.code || $('#join-code').value.trim().toUpperCase();
  if (!code) return;
  setUrlRoom(code);
  const url = new URL(location.href);
  url.searchParams.set('watch', '1');
  history.replaceState(null, '', url.toString());
  enterRoom(code, null);
}

// ---- lobby: bots one seat at a time
async function seatBot(seat, add) {
  try {
    if (add) await api.addBot(S.code, seat, S.token);
    else await api.removeBot(S.code, seat, S.token);
  } catch (e) {
    toast(apiErrorText(e));
    $('#toast').dataset.code = e.code || '';
  }
  await refreshRoom();
}

/** Each empty seat of an open room not kept for a player gets 加机器人, each bot seat 移除
 * (seated players only). */
function decorateSeatList() {
  const r = S.room;
  const open = !!r && r.status === 'open' && !S.view;
  const can = open && !!S.token && !S.replaced;
  document.querySelectorAll('#seat-list li').forEach((li) => {
    const seat = Number(li.dataset.seat);
    const info = r && (r.seats || []).find((x) => x && x.seat === seat);
    if (info && info.bot) li.dataset.bot = 'true';
    if (!can) return;
    if (!info) {
      if (li.classList.contains('held')) return; // (a kept seat waits for its player)
      li.append(h('button', { type: 'button', class: 'ghost small seat-bot-add', dataset: { action: 'add_bot', seat: String(seat) }, onclick: () => seatBot(seat, true) }, t('add_bot_here')));
    } else if (info.bot) {
      li.append(h('button', { type: 'button', class: 'ghost small seat-bot-remove', dataset: { action: 'remove_bot', seat: String(seat) }, onclick: () => seatBot(seat, false) }, t('remove_bot')));
    }
  });
}

function renderSocial() {
  decorateSeatList();
  renderPhrasePanel();
  renderBubbles();
  const rb = $('#replaced-banner');
  rb.hidden = !S.replaced;
  if (S.replaced) { $('#reconnect-btn').hidden = true; $('#conn-banner').hidden = true; } // the banner says why
  const spectator = !!S.code && (S.seat === null || S.seat === undefined);
  $('#spectator-badge').hidden = !spectator;
  $('#spectator-chip').hidden = !spectator;
  $('#add-bots').hidden = spectator; // bots are a seated player's call
  const hint = $('#add-bots').parentNode.querySelector('small');
  if (hint) hint.textContent = spectator ? `${t('spectating')} · ${t('start_hint')}` : t('start_hint');
  document.body.dataset.spectator = spectator ? 'true' : 'false';
}

function renderMute() {
  const b = $('#mute-toggle');
  const m = isMuted();
  b.dataset.muted = m ? 'true' : 'false';
  b.setAttribute('aria-pressed', m ? 'true' : 'false');
  b.replaceChildren(speakerIcon(m));
  b.title = m ? t('sound_off') : t('sound_on');
  b.setAttribute('aria-label', b.title);
}

/** A speaker (with sound waves, or crossed out when muted) as SVG: no emoji font needed. */
function speakerIcon(muted) {
  const wrap = h('span', { class: 'speaker' });
  const tail = muted
    ? '<path d="M16 9 l6 6 M22 9 l-6 6" stroke="currentColor" stroke-width="2" stroke-linecap="round"/>'
    : '<path d="M16 8.5 q3 3.5 0 7 M18.5 6 q5.5 6 0 12" fill="none" stroke="currentColor" stroke-width="1.8" stroke-linecap="round"/>';
  wrap.innerHTML = `<svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true"><path d="M3 9 h4 l5 -4 v14 l-5 -4 h-4z" fill="currentColor"/>${tail}</svg>`;
  return wrap;
}

function bindSocial() {
  $('#mute-toggle').addEventListener('click', () => { setMuted(!isMuted()); renderMute(); });
  renderMute();
  $('#phrase-btn').addEventListener('click', () => { S.phraseOpen = !S.phraseOpen; renderPhrasePanel(); });
  // a tap anywhere else (or Escape) closes the phrase panel
  document.addEventListener('pointerdown', (e) => {
    if (S.phraseOpen && !e.target.closest('#phrase-panel, #phrase-btn')) { S.phraseOpen = false; renderPhrasePanel(); }
  });
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && S.phraseOpen) { S.phraseOpen = false; renderPhrasePanel(); }
  });
  $('#spectate-btn').addEventListener('click', spectate);
  $('#replaced-resume').addEventListener('click', () => { if (S.socket) S.socket.reopen(); });
}

// ------------------------------------------------------------------ boot
function bind() {
  $('#create-form').addEventListener('submit', onCreate);
  document.querySelectorAll('input[name="game"]').forEach((el) => el.addEventListener('change', renderGameOptions));
  restoreRules(store.rules());
  $('#join-form').addEventListener('submit', onJoin);
  $('#join-code').addEventListener('input', () => {
    showError($('#join-error'), ''); // no stale "no such room"
    // a whole code typed in (not only one from a shared link) offers 观战 too
    const code = $('#join-code').value.trim().toUpperCase();
    if (code.length === 6) offerSpectate(code);
    else $('#spectate-btn').hidden = true;
  });
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
  const sendReady = () => {
    // a player who says ready is back: 托管 off first, as the apps do (the room itself
    // takes ready as no action of a hand, docs/protocol.md)
    if (S.socket && isAuto(S.seat)) S.socket.send({ type: 'auto', on: false });
    if (S.socket && S.socket.sendAnswered({ type: 'ready' })) {
      S.readySent = true;
      renderSettlement();
      tick();
    }
  };
  $('#ready-btn').addEventListener('click', sendReady);
  $('#again-btn').addEventListener('click', playAgain);
  // the settlement closed: 准备 between hands, 再来一场 once the session is over
  $('#table-ready-btn').addEventListener('click', () => (S.sessionOver ? playAgain() : sendReady()));
  $('#settlement-close').addEventListener('click', () => { S.settlementOpen = false; renderAll(); });
  $('#last-settlement-btn').addEventListener('click', () => { S.settlementOpen = true; renderAll(); });
  $('#reconnect-btn').addEventListener('click', () => { if (S.socket) S.socket.reopen(); });
  bindSocial();
  for (const id of ['#rules-btn', '#room-rules-btn', '#settle-rules-btn']) { // table, waiting room, settlement
    $(id).addEventListener('click', () => { S.rulesOpen = true; renderRules(); });
  }
  $('#rules-close').addEventListener('click', () => { S.rulesOpen = false; renderRules(); });
  bindLeave();
  $('#rules-overlay').addEventListener('click', (e) => { if (e.target.id === 'rules-overlay') { S.rulesOpen = false; renderRules(); } });
  const askDissolve = () => { S.confirmDissolve = true; S.voteResult = null; renderVote(); };
  $('#dissolve-btn').addEventListener('click', askDissolve);
  $('#settle-dissolve-btn').addEventListener('click', askDissolve);
  $('#lang-toggle').addEventListener('click', () => {
    setLang(getLang() === 'zh' ? 'en' : 'zh');
    translateDom();
    renderMute();
    if (S.conn !== 'idle') setConn(S.conn);
    renderAll();
    tick(); // the countdowns and 准备 too, now rather than at the next tick
    if (!$('#lobby').hidden) relabelGameOptions(); // the chosen game's own options (Jintan's)
    for (const el of document.querySelectorAll('#lobby-error, #join-error')) {
      if (!el.hidden && el.refusal) el.textContent = apiErrorText(el.refusal);
    }
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
    if (params.get('watch') === '1') { // a spectator's reload keeps watching
      enterRoom(code, null);
      return;
    }
  }
  showLobby(code || null);
}

setLang(getLang());
translateDom();
bind();
route();

// ------------------------------------------------------------------ 战绩 (web/records.js)
/** Show a stored hand's settlement (GET /api/me/rooms/{code}/hands/{n}) in the table's
 * settlement overlay, drawn by renderSettlement as at the table. Only outside a room;
 * records.js closes the overlay itself. Returns false inside a room. */
export function showStoredSettlement(d) {
  if (S.code) return false;
  S.room = { code: d.room, game: d.game, options: d.options, seats: d.seats, totals: d.totals, status: 'finished' };
  Object.assign(S, {
    seat: null, view: null, deadline: null, readySent: false, sessionOver: false, dissolved: false, dissolvedBy: null, standings: null,
    // with the seed's hash and the dealer, which the table's view gave (for 验证); after the
    // session's last hand no 下局庄家
    settlement: {
      settlement: { ...d.settlement, seed_hash: d.seed_hash, dealer: d.dealer, ...(d.session_last ? { next_dealer: null } : {}) },
      totals: d.totals, handNo: d.hand_no,
      // the admin's corrections, counted in the totals shown: said under the title
      corrected: { adjust: d.adjust, voided: d.voided },
    },
    settlementOpen: true,
  });
  renderSettlement();
  return true;
}
