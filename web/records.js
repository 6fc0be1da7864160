// 战绩 (issue 14): the player's own rooms, a room's hands with each seat's delta, one hand's
// settlement as at the table (app.js's renderer), and SVG charts drawn here: the running total
// over the player's hands, and a session's standings hand by hand. Opened with ./?records.
// Data: GET /api/me/... with the player code (docs/protocol.md).
import { request, profile, ensureProfile, ApiError } from './api.js';
import { botName, translator, winKindText } from './i18n.js';
import { h } from './dom.js';
import { showStoredSettlement, optionsSummary } from './app.js';

const L = {
  zh: {
    records: '战绩', replay: '回放', back: '返回大厅', running_total: '累计积分', rooms: '我的房间', more: '更多',
    no_rooms: '还没有打完的牌局', hands: '局', played: '已打{n}局', hand: '第{n}局', view: '查看', standings: '积分走势',
    final: '最终', so_far: '目前', me: '我', no_hands: '这个房间还没有结算的牌局', loading: '加载中…',
    status_finished: '已结束', status_between: '进行中', status_playing: '进行中', status_open: '等人',
    status_dissolved: '已解散', voided: '作废', game_guiyang: '贵阳捉鸡', game_jintan: '金坛麻将',
    players_n: '{n}人', hands_n: '{n}局', total_after: '共{n}局 · 累计 {total}', rank: '第{n}名',
    back_rooms: '返回房间列表', player: '玩家', chart_empty: '打完一局后这里会画出积分走势',
    list_sep: '；', huang: '黄庄', won_mark: '胡', dealt_in_mark: '炮', won: '胡牌', dealt_in: '点炮',
    adjusted_mark: '调', adjusted: '管理员调整：结算 {settled}，调整 {adj}', adjusted_note: '调：第{n}局管理员调整了积分（{list}），表中已计入',
  },
  en: {
    records: 'Records', replay: 'Replay', back: 'Lobby', running_total: 'Running total', rooms: 'My rooms', more: 'More',
    no_rooms: 'No finished hands yet', hands: 'hands', played: 'hands played: {n}', hand: 'Hand {n}', view: 'View', standings: 'Standings by hand',
    final: 'Final', so_far: 'So far', me: 'me', no_hands: 'No settled hand in this room yet', loading: 'Loading…',
    status_finished: 'finished', status_between: 'in play', status_playing: 'in play', status_open: 'waiting',
    status_dissolved: 'dissolved', voided: 'void', game_guiyang: 'Guiyang Zhuoji', game_jintan: 'Jintan',
    players_n: '{n} players', hands_n: '{n} hands', total_after: 'hands: {n} · total {total}', rank: '#{n}',
    back_rooms: 'All rooms', player: 'Player', chart_empty: 'The chart appears after your first hand',
    list_sep: '; ', huang: 'exhausted', won_mark: 'W', dealt_in_mark: 'D', won: 'won', dealt_in: 'dealt in',
    adjusted_mark: 'adj', adjusted: 'adjusted by the admin: settled {settled}, adjusted {adj}', adjusted_note: 'adj: hand {n} adjusted by the admin ({list}), counted in the table',
  },
};
const rt = translator(L);

const $ = (sel, root = document) => root.querySelector(sel);
const SVG = 'http://www.w3.org/2000/svg';
function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined) el.setAttribute(k, String(v));
  for (const c of children.flat()) if (c) el.append(typeof c === 'string' ? document.createTextNode(c) : c);
  return el;
}

const fmt = (v) => (v > 0 ? `+${v}` : String(v));
const date = (iso) => {
  if (!iso) return '';
  const d = new Date(iso);
  const p = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
};

/** A room's rules in a line, as its table lists them (``optionsSummary``), after the game's
 *  name. */
function optionsText(game, o) {
  const rules = optionsSummary(o, game);
  // Jintan's line starts with its name already
  return game === 'jintan' ? rules : [rt(`game_${game}`), rules].filter(Boolean).join(' · ');
}

const api = {
  get: (path) => request('GET', path, undefined, (profile.get() || {}).code),
};

/** A seat's name as at the table: a bot's is localised (机器人3 for the server's "Bot 3"). */
const seatLabel = (seat) => (seat.bot ? botName(seat.seat) : seat.name);

// ------------------------------------------------------------------ charts
const COLORS = ['#b91c1c', '#1d4ed8', '#15803d', '#b45309'];

/** A line chart as SVG: `series` [{label, values: [y...], cls}], x = the index (0..n-1),
 * `xLabel(i)` the tick text. Drawn into a viewBox, scaled to the container's width. */
export function lineChart(series, { xLabel = (i) => String(i), id = null, width = 600 } = {}) {
  // drawn at the container's width, so the labels keep their size on a phone
  const W = Math.max(280, Math.round(width)); const H = Math.round(Math.min(220, Math.max(160, W * 0.4))); const right = 12; const top = 12; const bottom = 26;
  const n = Math.max(0, ...series.map((x) => x.values.length));
  const all = series.flatMap((x) => x.values).concat([0]);
  let lo = Math.min(...all); let hi = Math.max(...all);
  if (lo === hi) { lo -= 1; hi += 1; }
  // the axis from a tick at or below the lowest point to one at or above the highest, so
  // every value stands between two labels (a step of 20 over -16..19 labelled only 0 and 20)
  const step = Math.max(1, niceStep((hi - lo) / 4));
  lo = Math.floor(lo / step) * step; hi = Math.ceil(hi / step) * step;
  // room for the longer end label (about 7 px a digit at the ticks' size): -1000000 fits
  const left = Math.max(44, 14 + 7 * Math.max(String(lo).length, String(hi).length));
  const X = (i) => left + (n <= 1 ? (W - left - right) / 2 : (i * (W - left - right)) / (n - 1));
  const Y = (v) => top + ((hi - v) * (H - top - bottom)) / (hi - lo);
  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart', role: 'img', id });
  // grid: zero line and a few y ticks
  for (let v = lo; v <= hi; v += step) {
    svg.append(s('line', { x1: left, x2: W - right, y1: Y(v), y2: Y(v), class: v === 0 ? 'zero' : 'grid' }));
    svg.append(s('text', { x: left - 6, y: Y(v) + 4, class: 'tick', 'text-anchor': 'end' }, String(Math.round(v))));
  }
  // as many x labels as fit (about 48 px each), at an even step (1 2 3 ..., 2 4 6 ...: never
  // "2 3 5 6"), and the last (the one before it left out if they would touch); a label the
  // same as the last shown left out
  const ticks = Math.min(n, 8, Math.max(2, Math.floor((W - left - right) / 48) + 1));
  const every = Math.max(1, Math.ceil((n - 1) / Math.max(1, ticks - 1)));
  const at = [];
  for (let i = 0; i < n - 1; i += every) at.push(i);
  if (at.length > 1 && X(n - 1) - X(at[at.length - 1]) < 48) at.pop(); // no room before the last
  if (n) at.push(n - 1);
  let shown = null;
  at.forEach((i, k) => {
    const label = xLabel(i);
    if (label === shown) return;
    shown = label;
    const anchor = at.length > 1 && k === 0 ? 'start' : at.length > 1 && k === at.length - 1 ? 'end' : 'middle';
    svg.append(s('text', { x: X(i), y: H - 8, class: 'tick xtick', 'text-anchor': anchor }, label));
  });
  series.forEach((ser, k) => {
    const color = COLORS[k % COLORS.length];
    const pts = ser.values.map((v, i) => `${X(i).toFixed(1)},${Y(v).toFixed(1)}`).join(' ');
    const g = s('g', { class: `series ${ser.cls || ''}`, 'data-label': ser.label, 'data-last': String(ser.values[ser.values.length - 1] ?? '') });
    g.append(s('polyline', { points: pts, fill: 'none', stroke: color, 'stroke-width': ser.cls === 'me' ? 3 : 2 }));
    if (ser.values.length <= 40) {
      ser.values.forEach((v, i) => g.append(s('circle', { cx: X(i), cy: Y(v), r: 3, fill: color }, s('title', {}, `${ser.label}: ${v}`))));
    }
    svg.append(g);
  });
  return svg;
}

function niceStep(raw) {
  const mag = 10 ** Math.floor(Math.log10(Math.max(raw, 1e-9)));
  for (const m of [1, 2, 5, 10]) if (raw <= m * mag) return m * mag;
  return 10 * mag;
}

function legend(series) {
  return h('div', { class: 'legend' }, series.map((ser, k) => h('span', { class: `key ${ser.cls || ''}` },
    h('i', { class: `swatch c${k % COLORS.length}` }), ser.label)));
}

// ------------------------------------------------------------------ views
const R = { rooms: [], next: null, history: [], room: null };

async function allHistory() {
  const rows = [];
  let cursor = null;
  for (let page = 0; page < 20; page++) {
    const q = `/api/me/history?limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const r = await api.get(q);
    rows.push(...r.rows);
    cursor = r.next;
    if (!cursor) break;
  }
  return rows.reverse(); // oldest first
}

function renderChart() {
  const box = $('#records-chart');
  box.replaceChildren();
  const hist = R.history;
  if (!hist.length) { box.append(h('p', { class: 'muted', text: rt('chart_empty') })); return; }
  // one running total per game (the server's `total` is per game: Guiyang's 底分 1 and
  // Jintan's 底数 10 are never added together), each flat while the other game is played
  const games = [...new Set(hist.map((x) => x.game))];
  const series = games.map((g, k) => {
    let now = 0;
    return {
      label: games.length > 1 ? rt(`game_${g}`) : rt('running_total'),
      values: [0, ...hist.map((x) => (x.game === g ? (now = x.total) : now))],
      cls: k === 0 ? 'me' : '',
    };
  });
  // the day of each hand (MM-DD), or its time (HH:MM) when every hand is of one day
  const days = hist.map((x) => date(x.ended_at));
  const oneDay = days.every((d) => d.slice(0, 10) === days[0].slice(0, 10));
  const labels = ['', ...days.map((d) => (oneDay ? d.slice(11, 16) : d.slice(5, 10)))];
  if (games.length > 1) box.append(legend(series));
  box.append(lineChart(series, { xLabel: (i) => labels[i], id: 'total-chart', width: box.clientWidth }));
  const line = h('p', { class: 'muted', id: 'total-line', dataset: { hands: String(hist.filter((x) => !x.voided).length) } });
  games.forEach((g, k) => {
    const mine = hist.filter((x) => x.game === g);
    const total = mine[mine.length - 1].total;
    // the hands that count, as the room list's 已打N局 (a voided hand is on the chart, flat)
    const counted = mine.filter((x) => !x.voided).length;
    const text = rt('total_after', { n: counted, total: fmt(total) });
    if (k) line.append(rt('list_sep'));
    line.append(h('span', { class: 'total-game', dataset: { game: g, total: String(total), hands: String(counted) }, text: games.length > 1 ? `${rt(`game_${g}`)} ${text}` : text }));
  });
  if (games.length === 1) line.dataset.total = line.firstChild.dataset.total;
  box.append(line);
}

function roomItem(r) {
  const li = h('li', { class: 'rec-room', dataset: { code: r.code, status: r.status } });
  const head = h('div', { class: 'rec-room-head' },
    h('b', { class: 'code', text: r.code }), h('span', { class: 'muted', text: date(r.created_at) }),
    h('span', { class: `badge status ${r.status}`, text: rt(`status_${r.status}`) }));
  // the options already say the session's length (4局): this is how many were played
  const opts = h('div', { class: 'muted rec-opts', text: `${optionsText(r.game, r.options)} · ${rt('played', { n: r.hands })}` });
  const seats = h('ol', { class: 'rec-seats' });
  // by rank, as the apps' 战绩 (seat order read 第3名 第4名 第1名 第2名); ties by seat
  const byRank = (a, b) => ((r.ranks[a.seat] ?? 99) - (r.ranks[b.seat] ?? 99)) || a.seat - b.seat;
  for (const seat of [...r.seats].sort(byRank)) {
    const total = r.standings[seat.seat] ?? 0;
    // a bot's name says so (机器人3; players may not take such a name): no badge beside it
    seats.append(h('li', { class: seat.seat === r.seat ? 'me' : '', dataset: { seat: String(seat.seat), total: String(total), rank: String(r.ranks[seat.seat] ?? ''), bot: String(!!seat.bot) } },
      // 第1名, not a bare 1 that reads as a seat number
      h('span', { class: `rank r${r.ranks[seat.seat] ?? ''}`, text: r.ranks[seat.seat] ? rt('rank', { n: r.ranks[seat.seat] }) : '' }),
      h('span', { class: 'name', title: seatLabel(seat), text: seatLabel(seat) + (seat.seat === r.seat ? ` (${rt('me')})` : '') }),
      h('span', { class: `num ${total > 0 ? 'pos' : total < 0 ? 'neg' : ''}`, text: fmt(total) })));
  }
  li.append(head, opts, seats);
  li.addEventListener('click', () => openRoom(r.code));
  li.tabIndex = 0;
  li.addEventListener('keydown', (e) => { if (e.key === 'Enter') openRoom(r.code); });
  return li;
}

function renderRooms() {
  const list = $('#records-rooms');
  list.replaceChildren();
  if (!R.rooms.length) list.append(h('li', { class: 'muted', text: rt('no_rooms') }));
  for (const r of R.rooms) list.append(roomItem(r));
  $('#records-more').hidden = !R.next;
}

async function loadRooms(more = false) {
  const q = `/api/me/rooms?limit=20${more && R.next ? `&cursor=${encodeURIComponent(R.next)}` : ''}`;
  const r = await api.get(q);
  R.rooms = more ? R.rooms.concat(r.rows) : r.rows;
  R.next = r.next;
  renderRooms();
}

/** 回放: the replay link of a settled hand (`/replay?hand=<id>&key=<hands.replay_key>`; the
 *  API gives the key to the hand's own players only), seen from ``seat`` (at the bottom). */
function replaySlot(row, seat) {
  if (!row.id || !row.replay_key) return h('span', { class: 'replay-slot' });
  return h('a', {
    class: 'ghost btn replay', dataset: { handId: String(row.id) },
    href: `/replay?hand=${row.id}&key=${encodeURIComponent(row.replay_key)}${Number.isInteger(seat) ? `&seat=${seat}` : ''}`,
  }, rt('replay'));
}

async function openRoom(code) {
  const box = $('#record-room');
  box.replaceChildren(h('p', { class: 'muted', text: rt('loading') }));
  $('#records-list').hidden = true;
  box.hidden = false;
  window.scrollTo(0, 0);
  const rows = [];
  let room = null;
  let cursor = null;
  do {
    const r = await api.get(`/api/me/rooms/${encodeURIComponent(code)}/hands?limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    room = r.room;
    rows.push(...r.rows);
    cursor = r.next;
  } while (cursor);
  R.room = { code, room, rows };
  renderRoom();
}

function renderRoom() {
  const { code, room, rows } = R.room;
  const box = $('#record-room');
  box.replaceChildren();
  box.dataset.code = code;
  box.append(h('div', { class: 'rec-room-head' },
    h('button', { type: 'button', class: 'ghost', id: 'records-back-rooms', text: `‹ ${rt('back_rooms')}`, onclick: closeRoom }),
    h('b', { class: 'code', text: room.code }), h('span', { class: 'muted', text: date(room.created_at) })));
  box.append(h('div', { class: 'muted rec-opts', text: optionsText(room.game, room.options) }));
  const n = Math.max(room.seats.length, ...rows.map((x) => x.deltas.length));
  const name = (i) => { const st = room.seats.find((x) => x.seat === i); return st ? seatLabel(st) : `#${i + 1}`; };
  if (!rows.length) { box.append(h('p', { class: 'muted', text: rt('no_hands') })); return; }
  // the session's standings hand by hand
  const series = [...Array(n).keys()].map((i) => ({
    label: name(i) + (i === room.seat ? ` (${rt('me')})` : ''),
    values: [0, ...rows.map((x) => x.standings[i] ?? 0)],
    cls: i === room.seat ? 'me' : '',
  }));
  box.append(h('h3', { text: rt('standings') }), legend(series),
    lineChart(series, { xLabel: (i) => (i === 0 ? '' : String(rows[i - 1].hand_no)), id: 'standings-chart', width: box.clientWidth - 32 }));
  // the hands: each seat's delta, what counts after corrections
  const table = h('table', { class: 'grid rec-hands', id: 'record-hands' });
  table.append(h('thead', {}, h('tr', {}, h('th', { text: '#' }),
    [...Array(n).keys()].map((i) => h('th', { class: i === room.seat ? 'me' : '', text: name(i) })), h('th', {}))));
  const tb = h('tbody');
  const notes = [];
  for (const row of rows) {
    const tr = h('tr', { class: `rec-hand ${row.voided ? 'voided' : ''}`, dataset: { handNo: String(row.hand_no), handId: String(row.id), deltas: row.effective.join(',') } });
    // how the hand ended (自摸, 点炮, 黄庄 ...) under its number; the winner's and the
    // dealer-in's cells marked 胡 / 炮
    const winners = row.winners || [];
    const how = winners.length ? winKindText(row.win_kind) : rt('huang');
    tr.dataset.result = winners.length ? (row.win_kind || 'win') : 'huang_zhuang';
    tr.append(h('td', {}, String(row.hand_no), how ? h('small', { class: 'rec-result', text: how }) : null));
    for (let i = 0; i < n; i++) {
      const d = row.effective[i] ?? 0;
      const role = winners.includes(i) ? 'won' : i === row.loser ? 'dealt_in' : null;
      const mark = role && !row.voided ? h('small', { class: `rec-mark ${role}`, title: rt(role), text: rt(`${role}_mark`) }) : null;
      // an admin's adjustment is counted in the cell: marked 调, what moved said below
      const adj = row.voided ? 0 : (row.adjust || [])[i] || 0;
      const fixed = adj ? h('small', { class: 'rec-mark adjusted', title: rt('adjusted', { settled: fmt(row.deltas[i] ?? 0), adj: fmt(adj) }), text: rt('adjusted_mark') }) : null;
      const data = { ...(role ? { role } : {}), ...(adj ? { adjusted: String(adj) } : {}) };
      tr.append(h('td', { class: `num ${d > 0 ? 'pos' : d < 0 ? 'neg' : ''} ${i === room.seat ? 'me' : ''}`, dataset: data },
        mark, row.voided ? rt('voided') : fmt(d), fixed));
    }
    const moved = row.voided ? [] : (row.adjust || []).map((a, i) => (a ? `${name(i)} ${fmt(a)}` : '')).filter(Boolean);
    if (moved.length) notes.push(rt('adjusted_note', { n: row.hand_no, list: moved.join(rt('list_sep')) }));
    // 查看 and 回放 share one cell, so that both fit a phone's width beside four seats
    tr.append(h('td', {}, h('span', { class: 'rec-links' }, h('button', { type: 'button', class: 'ghost view-hand', text: rt('view'), onclick: () => openHand(code, row.hand_no) }), replaySlot(row, room.seat))));
    tb.append(tr);
  }
  const last = rows[rows.length - 1];
  // 最终 once the session is over; while it goes on, the standings so far
  const over = ['finished', 'dissolved'].includes(room.status);
  const foot = h('tr', { class: 'rec-final', dataset: { over: String(over) } }, h('td', { text: rt(over ? 'final' : 'so_far') }),
    [...Array(n).keys()].map((i) => h('td', { class: `num ${i === room.seat ? 'me' : ''}`, dataset: { seat: String(i) }, text: fmt(last.standings[i] ?? 0) })), h('td', {}));
  table.append(tb, h('tfoot', {}, foot));
  box.append(h('div', { class: 'scroll-x' }, table));
  for (const text of notes) box.append(h('p', { class: 'muted rec-adjusted', text }));
}

function closeRoom() {
  $('#record-room').hidden = true;
  $('#records-list').hidden = false;
  R.room = null;
  renderChart();
}

async function openHand(code, handNo) {
  const d = await api.get(`/api/me/rooms/${encodeURIComponent(code)}/hands/${handNo}`);
  if (showStoredSettlement(d)) {
    const ov = $('#settlement-overlay');
    ov.dataset.records = 'true';
    ov.dataset.room = code;
    ov.dataset.handNo = String(handNo);
  }
}

function closeHand() {
  const ov = $('#settlement-overlay');
  if (ov.dataset.records !== 'true') return;
  ov.hidden = true;
  delete ov.dataset.records;
}

async function openRecords() {
  $('#lobby').hidden = true;
  $('#room').hidden = true;
  $('#records').hidden = false;
  document.title = rt('records');
  translate();
  const p = await ensureProfile();
  $('#records-player').textContent = p.name;
  $('#records-code').textContent = p.code;
  try {
    await loadRooms();
    R.history = await allHistory();
    renderChart();
  } catch (e) {
    const msg = e instanceof ApiError ? e.message : String(e);
    $('#records-error').textContent = msg;
    $('#records-error').hidden = false;
  }
}

function translate() {
  document.querySelectorAll('[data-rt]').forEach((el) => { el.textContent = rt(el.dataset.rt); });
}

let resizing = null;
let drawnWidth = 0;
function onResize() {
  clearTimeout(resizing);
  resizing = setTimeout(() => {
    if ($('#records').hidden || window.innerWidth === drawnWidth) return;
    drawnWidth = window.innerWidth;
    if (!$('#records-list').hidden) renderChart();
    else if (R.room) renderRoom();
  }, 40);
}

function bind() {
  window.addEventListener('resize', onResize);
  $('#records-more').addEventListener('click', () => loadRooms(true));
  $('#settlement-close').addEventListener('click', closeHand);
  $('#lang-toggle').addEventListener('click', () => {
    translate();
    if ($('#records').hidden) return;
    renderRooms();
    renderChart();
    if (R.room) renderRoom();
  });
  translate();
}

bind();
if (new URLSearchParams(location.search).has('records')) openRecords();
