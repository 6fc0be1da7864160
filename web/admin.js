// The admin console (/admin): the admin API's lists with filters, pages, CSV download, a
// hand's breakdown and void. The token is kept in sessionStorage only (gone with the tab).
// Chinese by default, English by the toggle, as the rest of the site (localStorage gy.lang).
import { t, translator, getLang, setLang, reasonText, errorMessage, ERRORS, botName, paymentReasonText } from './i18n.js';

const $ = (id) => document.getElementById(id);
const KEY = "zhuoji-admin-token";
let cursor = null;

const PATHS = {
  rooms: "/api/admin/rooms",
  player: "/api/admin/player/hands",
  leaderboard: "/api/admin/leaderboard",
  ledger: "/api/admin/ledger",
  corrections: "/api/admin/corrections",
};

/** The page's own words (the shared ones, games and results, come from i18n.js). */
const L = {
  zh: {
    title: "战绩管理", heading: "战绩管理", token: "管理员令牌", log_in: "登录",
    log_out: "退出登录", logged_in: "已登录", list: "列表", list_rooms: "房间",
    list_player: "玩家的牌局", list_leaderboard: "排行榜", list_ledger: "支付明细",
    list_corrections: "更正记录", player_filter: "玩家（完整昵称，或 #玩家ID）", room_filter: "房间号",
    game_filter: "玩法", since: "开始日期", until: "截止日期", limit: "每页行数", show: "查询",
    csv: "下载 CSV", next: "下一页", void_reason: "作废原因", void_admin: "你的名字",
    adjust_from: "扣分座位", adjust_to: "加分座位", adjust_points: "分数", adjust_reason: "调整原因", adjust_submit: "调整积分",
    adjust_confirm: "房间 {room} 第 {n} 局：从 {from} 移 {points} 分给 {to}？", adjust_same: "扣分和加分的座位不能相同",
    void: "作废这一局", void_confirm: "作废房间 {room} 第 {n} 局？这一局的积分将不再计入，作废不能撤销。", replay_link: "回放", fixture: "牌局记录（fixture 格式）",
    rows_n: "共 {n} 行", room_hands: "房间 {code}：共 {n} 局",
    no_name_rows: "按昵称只找没有玩家档案的座位；有档案的玩家用 #玩家ID（排行榜里有）",
    hand_title: "房间 {room} 第{n}局{voided} · {result}", voided_mark: "（已作废）",
    in_play: "这一局还在进行中：结束后才显示种子和回放。",
    by_name: "按昵称", who_name: "{player}（按昵称，无玩家档案）", who_profile: "{player} #{profile}",
    totals: "{who} · 局数 {hands} · 胡牌 {wins} 次 · 积分 {points}", adjustment: "调整",
    game_any: "全部", game_guiyang: "贵阳捉鸡", game_jintan: "金坛麻将",
    by_game: "两种玩法的分值大小不同，分开看：{games}", game_points: "{game} {hands} 局 {points} 分",
    token_refused: "令牌无效", yes: "是", no: "否",
    status_open: "等人", status_playing: "进行中", status_between: "局间", status_finished: "已结束",
    status_dissolved: "已解散", kind_void: "作废", kind_adjust: "调整",
  },
  en: {
    title: "Admin · Score history", heading: "Score history (admin)", token: "Admin token",
    log_in: "Log in", log_out: "Log out", logged_in: "logged in", list: "List",
    list_rooms: "rooms", list_player: "player's hands", list_leaderboard: "leaderboard",
    list_ledger: "payments", list_corrections: "corrections",
    player_filter: "Player (exact name, or #profile id)", room_filter: "Room", game_filter: "Game",
    since: "Since", until: "Until", limit: "Rows", show: "Show", csv: "Download CSV",
    adjust_from: "From seat", adjust_to: "To seat", adjust_points: "Points", adjust_reason: "Reason", adjust_submit: "Adjust points",
    adjust_confirm: "Room {room} hand {n}: move {points} points from {from} to {to}?", adjust_same: "Pick two different seats",
    next: "Next page", void_reason: "Reason", void_admin: "Your name", void: "Void this hand", void_confirm: "Void hand {n} of room {room}? Its points will count no more; a void cannot be undone.",
    replay_link: "Watch the replay (回放)", fixture: "Replay (fixture)",
    rows_n: "{n} rows", room_hands: "room {code}: {n} hands",
    no_name_rows: "a name finds seats without a profile only; a player with one is #profile id (see the leaderboard)",
    hand_title: "Room {room} hand {n}{voided} · {result}", voided_mark: " (voided)",
    in_play: "In play: its seed and replay show once the hand has ended.",
    by_name: "by name", who_name: "{player} (name, no profile)", who_profile: "{player} #{profile}",
    totals: "{who} · hands {hands} · wins {wins} · points {points}", adjustment: "adjustment",
    game_any: "any", game_guiyang: "Guiyang Zhuoji", game_jintan: "Jintan",
    by_game: "the games' points are of different sizes, apart: {games}", game_points: "{game} {hands} hands {points} points",
    token_refused: "The token was refused", yes: "yes", no: "no",
    status_open: "open", status_playing: "playing", status_between: "between hands",
    status_finished: "finished", status_dissolved: "dissolved", kind_void: "void", kind_adjust: "adjustment",
  },
};
const at = translator(L);

/** Column headers by the API's field names (each header's title keeps the field's name, as
 *  the CSV's header row has it). */
const COLUMNS = {
  zh: {
    code: "房间号", room: "房间号", game: "玩法", status: "状态", created_at: "时间", seats: "玩家",
    hands: "局数", standings: "累计积分", id: "编号", hand_no: "局", seat: "座位", name: "昵称",
    profile: "玩家ID", bot: "机器人", started_at: "开始时间", ended_at: "结束时间", result: "结果",
    delta: "本局得分", deltas: "各家得分", adjust: "调整", effective: "计入得分", voided: "已作废",
    points: "积分", won: "胡牌", rank: "名次", player: "玩家", wins: "胡牌次数", from: "付分座位",
    to: "收分座位", from_name: "付分", to_name: "收分", reason: "原因", kind: "类型", actor: "操作人",
    counts: "计入得分", reason_text: "原因",
  },
  en: {
    code: "Room", room: "Room", game: "Game", status: "Status", created_at: "Time", seats: "Players",
    hands: "Hands", standings: "Standings", id: "ID", hand_no: "Hand", seat: "Seat", name: "Name",
    profile: "Profile", bot: "Bot", started_at: "Started", ended_at: "Ended", result: "Result",
    delta: "Hand score", deltas: "Scores", adjust: "Adjustment", effective: "Counted", voided: "Voided",
    points: "Points", won: "Won", rank: "Rank", player: "Player", wins: "Wins", from: "From seat",
    to: "To seat", from_name: "Pays", to_name: "Receives", reason: "Reason", kind: "Kind", actor: "By",
    counts: "Counted", reason_text: "Reason",
  },
};
const column = (k) => (COLUMNS[getLang()] || COLUMNS.zh)[k] || COLUMNS.zh[k] || k;

/** What is on the page, kept so that a switch of language redraws it as it stands. */
const V = { rows: [], onRow: null, count: null, totals: null, hand: null, error: null };

function token() { return sessionStorage.getItem(KEY); }

/** An API error's text in the page's language: the site's message for its code, else the
 *  server's own words. */
function apiError(status, body) {
  const d = body && body.detail;
  if (Array.isArray(d)) {
    // a form field the server refused (422): which, and why (a bare "HTTP 422" said nothing)
    const text = d.map((e) => `${(e.loc || []).filter((k) => k !== "body").join(".")}: ${e.msg}`).join("; ");
    return () => text || `HTTP ${status}`;
  }
  const code = d ? d.code : null;
  // a refused correction says its own reason too (which seat, an unsettled hand ...)
  if (code === "bad_correction" && d.message) return () => `${errorMessage(code)}: ${d.message}`;
  if (code && ERRORS.zh[code]) return () => errorMessage(code);
  const text = (d && d.message) || `HTTP ${status}`;
  return () => text;
}

class ApiError extends Error {
  constructor(text) { super(text()); this.text = text; }
}

async function call(path, opts = {}) {
  const r = await fetch(path, {
    ...opts,
    headers: { Authorization: `Bearer ${token()}`, ...(opts.headers || {}) },
  });
  if (r.status === 403) { logout(() => at("token_refused")); throw new ApiError(() => at("token_refused")); }
  if (!r.ok) {
    const body = await r.json().catch(() => ({}));
    throw new ApiError(apiError(r.status, body));
  }
  return r;
}

function showError(e) {
  V.error = e && e.text ? e.text : () => (e ? e.message || String(e) : "");
  $("error").textContent = V.error();
}

function clearError() { V.error = null; $("error").textContent = ""; }

/** The start of the local day ``days`` after the date input's ``value`` (2026-12-07), as
 *  an ISO instant. */
function localDay(value, days) {
  const [y, m, d] = value.split("-").map(Number);
  return new Date(y, m - 1, d + days).toISOString();
}

function params(extra = {}) {
  const p = new URLSearchParams();
  const list = $("list").value;
  const name = $("name").value, room = $("room").value.trim(), game = $("game").value;
  // "#17": the player profile with id 17 (issue 14); anything else: the exact seat name
  const profile = /^#(\d+)$/.exec(name.trim());
  const byPlayer = list === "player" || list === "rooms" || list === "ledger";
  if (profile && byPlayer) p.set("profile", profile[1]);
  else if (list === "player") p.set("name", name);
  else if (name && byPlayer) p.set("player", name);
  if (room && (list === "ledger" || list === "corrections")) p.set("room", room);
  if (game && (list === "rooms" || list === "leaderboard" || list === "player")) p.set("game", game);
  // the days as the admin's clock has them (the times shown are local too); Until's day
  // included: the API's until is the next day's start
  if ($("since").value) p.set("since", localDay($("since").value, 0));
  if ($("until").value) p.set("until", localDay($("until").value, 1));
  p.set("limit", $("limit").value || "50");
  for (const [k, v] of Object.entries(extra)) if (v != null) p.set(k, v);
  return p;
}

/** An ISO time as the admin's clock reads it: 2026-01-01 12:40:00. */
function localTime(iso) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  const p = (n) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

function resultText(v) {
  if (v === "win") return t("result_win");
  if (v === "huang_zhuang") return t("result_huang");
  return v || "";
}

/** A cell's text for field ``k`` of ``row``, in the page's language. */
function cell(v, k, row) {
  // a player profile's id as "#17" (what the player filter takes); "by name" for a seat without
  // a profile (taken before profiles existed, or a bot), counted by its exact name
  if (k === "profile") return v === null || v === undefined ? at("by_name") : `#${v}`;
  if (v === null || v === undefined) return "";
  if (typeof v === "boolean") return at(v ? "yes" : "no");
  // seats: each name with its profile id (two players may share a name), apart by " · "
  if (Array.isArray(v)) return v.map((x) => (typeof x === "object" ? `${seatName(x)}${x.profile ? ` #${x.profile}` : ""}` : x)).join(" · ");
  if (typeof v === "object") return JSON.stringify(v);
  if (k.endsWith("_at")) return localTime(v);
  if (k === "game" && (v === "guiyang" || v === "jintan")) return t(`game_${v}`);
  if (k === "status" && L.zh[`status_${v}`]) return at(`status_${v}`);
  if (k === "result") return resultText(v);
  if (k === "kind" && L.zh[`kind_${v}`]) return at(`kind_${v}`);
  // a payment's reason is a code (hu, ji, ...); a correction's is the admin's own words
  if (k === "reason" && row.kind === undefined) return reasonText(v);
  return String(v);
}

/** A seat's name as the table shows it: a bot's as 机器人N / Bot N by its seat (the server
 *  stores "Bot 2"), a player's own. ``s``: ``{"seat", "name", "bot"}``. */
function seatName(s) {
  return s.bot && Number.isInteger(s.seat) ? botName(s.seat) : s.name;
}

function table(el, rows, onRow) {
  el.replaceChildren();
  if (!rows.length) return;
  const keys = Object.keys(rows[0]).filter((k) => k !== "options" && k !== "detail");
  const head = el.insertRow();
  for (const k of keys) {
    const th = document.createElement("th");
    th.textContent = column(k);
    th.title = k; // the field's name, as in the CSV
    th.dataset.key = k;
    head.append(th);
  }
  for (const row of rows) {
    const tr = el.insertRow();
    if (row.voided) tr.className = "voided";
    for (const k of keys) {
      const td = tr.insertCell();
      td.textContent = cell(row[k], k, row);
      if (k.endsWith("_at") && row[k]) td.title = row[k];
      if (typeof row[k] === "number" && k !== "profile") td.className = "num";
    }
    if (onRow) { tr.style.cursor = "pointer"; tr.addEventListener("click", () => onRow(row)); }
  }
}

function showRows(rows, onRow) {
  V.rows = rows; V.onRow = onRow;
  table($("rows"), rows, onRow);
}

function renderCount() {
  const el = $("count");
  const c = V.count;
  el.textContent = !c ? "" : c.room ? at("room_hands", { code: c.room, n: c.n }) : at("rows_n", { n: c.n });
  // nothing found for a name: say where players with a profile are found
  if (c && !c.room && c.n === 0 && c.byName) el.textContent += ` · ${at("no_name_rows")}`;
  if (c && c.room) el.dataset.room = c.room; else delete el.dataset.room;
}

function renderTotals() {
  const tt = V.totals;
  if (!tt) { $("totals").textContent = ""; return; }
  const who = tt.profile == null ? at("who_name", { player: tt.player })
    : at("who_profile", { player: tt.player, profile: tt.profile });
  const sep = getLang() === "zh" ? "，" : ", ";
  const reasons = Object.entries(tt.by_reason || {})
    .map(([r, v]) => `${r === "adjustment" ? at("adjustment") : reasonText(r)} ${v}`).join(sep);
  // points of both games together are no total to read (底分 1 against 底数 10): each apart
  const games = Object.entries(tt.games || {});
  const byGame = games.length > 1 ? ` · ${at("by_game", { games: games.map(([g, v]) => at("game_points", { game: at(`game_${g}`), hands: v.hands, points: v.points })).join(sep) })}` : "";
  $("totals").textContent = at("totals", { who, hands: tt.hands, wins: tt.wins, points: tt.points })
    + (reasons ? ` · ${reasons}` : "") + byGame;
}

let shown = [];
/** What is shown nothing: after an error, no rows of an earlier query stay under it. */
function clearShown() {
  shown = []; cursor = null; $("next").hidden = true;
  V.count = null; V.totals = null;
  showRows([], null); renderCount(); renderTotals();
}

/** How to fetch again what the list shows (after a correction changed it). */
let reload = () => show();
/** What 下载 CSV downloads while a room's hands are shown (``{path, name}``); null: the list
 *  the form asks for. */
let csvOf = null;

async function show(more = false) {
  clearError();
  reload = () => show();
  csvOf = null;
  const list = $("list").value;
  if (!more) { shown = []; cursor = null; }
  try {
    const r = await call(`${PATHS[list]}?${params({ cursor: more ? cursor : null })}`);
    const body = await r.json();
    shown = shown.concat(body.rooms || body.rows);
    cursor = body.next;
    $("next").hidden = !cursor;
    const name = $("name").value.trim();
    V.count = { n: shown.length, byName: !!name && !/^#\d+$/.test(name) };
    renderCount();
    const open = (row) => (row.room || row.code) && row.hand_no ? openHand(row.room, row.hand_no)
      : row.code ? openRoom(row.code) : list === "leaderboard" ? openPlayer(row) : null;
    showRows(shown, open);
    if (!more) { V.totals = null; renderTotals(); }
    if (list === "player" && !more) {
      V.totals = await (await call(`/api/admin/player?${params()}`)).json();
      renderTotals();
    }
  } catch (e) { clearShown(); showError(e); }
}

// a leaderboard row: that player's hands and totals (by profile id, or by the seat name for a
// row without profile)
function openPlayer(row) {
  $("list").value = "player";
  $("name").value = row.profile == null ? row.player : `#${row.profile}`;
  show();
}

async function openRoom(code) {
  reload = () => openRoom(code);
  csvOf = { path: `/api/admin/rooms/${code}/hands`, name: `room-${code}-hands` };
  try {
    const body = await (await call(`/api/admin/rooms/${code}/hands?limit=1000`)).json();
    shown = body.rows; cursor = null; $("next").hidden = true;
    V.count = { room: code, n: shown.length };
    renderCount();
    showRows(shown, (row) => openHand(code, row.hand_no));
  } catch (e) { clearShown(); showError(e); }
}

function renderHand() {
  const h = V.hand;
  if (!h) return;
  $("hand-title").textContent = at("hand_title", {
    room: h.room, n: h.hand_no, voided: h.voided ? at("voided_mark") : "", result: resultText(h.result),
  });
  table($("hand-deltas"), h.seats.map((s) => ({
    seat: s.seat, name: seatName(s), delta: h.deltas[s.seat], adjust: h.adjust[s.seat],
    counts: h.effective[s.seat],
  })));
  // who pays whom by name and seat, and each chicken's kind and place (鸡 · 幺鸡 · 河里)
  const who = (i) => {
    const s = h.seats.find((x) => x.seat === i);
    return s ? `${seatName(s)} (${i})` : String(i);
  };
  table($("hand-payments"), h.payments.map((p) => ({
    id: p.id, from_name: who(p.from), to_name: who(p.to), points: p.points,
    reason_text: paymentReasonText(p, h.options),
  })));
  // its corrections: what, by whom, when and why (the list of all of them says the same)
  table($("hand-corrections"), (h.corrections || []).map((c) => ({
    kind: c.kind, from: c.from === null || c.from === undefined ? "" : who(c.from),
    to: c.to === null || c.to === undefined ? "" : who(c.to), points: c.points, reason: c.reason, actor: c.actor, created_at: c.created_at,
  })));
  $("hand-replay").textContent = h.replay ? JSON.stringify(h.replay, null, 1) : at("in_play");
  // the adjustment's seats by name, as the tables above: kept as chosen when the same hand
  // is drawn again (a language switch), the defaults for another hand (whose room may not
  // have the seat chosen before: a blank choice was sent as seat 0)
  const key = `${h.room}/${h.hand_no}`;
  for (const [id, pick] of [["adjust-from", 1], ["adjust-to", 0]]) {
    const el = $(id);
    const chosen = el.dataset.hand === key ? el.value : String(pick);
    el.replaceChildren(...h.seats.map((s) => {
      const o = document.createElement("option");
      o.value = String(s.seat); o.textContent = who(s.seat);
      return o;
    }));
    el.value = chosen;
    if (el.value === "") el.selectedIndex = 0;
    el.dataset.hand = key;
  }
}

let current = null;
async function openHand(code, handNo) {
  try {
    const h = await (await call(`/api/admin/rooms/${code}/hands/${handNo}`)).json();
    current = h;
    V.hand = h;
    $("hand").hidden = false;
    renderHand();
    $("void").hidden = h.voided;
    $("adjust").hidden = h.voided || !h.ended_at; // (a voided hand counts nothing to move)
    const link = $("hand-replay-link"); // the 回放 viewer; it reads the token from sessionStorage
    link.hidden = !h.hand_id || !h.ended_at;
    link.href = h.hand_id ? `/replay?hand=${h.hand_id}` : "#";
  } catch (e) { showError(e); }
}

/** The list as CSV, every page of it (1,000 rows a page, `X-Next-Cursor` to the next):
 *  one header, then the rows. */
async function downloadCsv() {
  try {
    const parts = [];
    let next = null;
    const page = { format: "csv", limit: 1000 };
    do {
      const query = csvOf
        ? new URLSearchParams({ ...page, ...(next ? { cursor: next } : {}) })
        : params({ ...page, cursor: next });
      const r = await call(`${csvOf ? csvOf.path : PATHS[$("list").value]}?${query}`);
      const text = await r.text();
      parts.push(parts.length ? text.slice(text.indexOf("\n") + 1) : text); // (header once)
      next = r.headers.get("X-Next-Cursor");
    } while (next);
    // a byte-order mark first: Excel opens a UTF-8 file without one as the local code page
    // (Chinese names garbled)
    const url = URL.createObjectURL(new Blob(["\ufeff", ...parts], { type: "text/csv;charset=utf-8" }));
    const a = document.createElement("a");
    a.href = url; a.download = `${csvOf ? csvOf.name : $("list").value}.csv`; a.id = "csv-link";
    document.body.append(a); a.click(); a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  } catch (e) { showError(e); }
}

function logout(why) {
  sessionStorage.removeItem(KEY);
  $("console").hidden = true; $("login").hidden = false;
  if (why) { V.error = why; $("error").textContent = why(); }
}

function loggedIn() {
  $("login").hidden = true; $("console").hidden = false;
  $("who").textContent = at("logged_in");
}

/** The page's fixed words in its language, and what is shown redrawn in it. */
function translatePage() {
  document.title = at("title");
  document.querySelectorAll("[data-at]").forEach((el) => { el.textContent = at(el.dataset.at); });
  $("lang-toggle").textContent = t("lang_toggle");
  if (!$("console").hidden) $("who").textContent = at("logged_in");
  table($("rows"), V.rows, V.onRow);
  renderCount();
  renderTotals();
  renderHand();
  $("error").textContent = V.error ? V.error() : "";
}

$("lang-toggle").addEventListener("click", () => {
  setLang(getLang() === "zh" ? "en" : "zh");
  translatePage();
});
$("login").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  sessionStorage.setItem(KEY, $("token").value);
  $("token").value = "";
  const r = await fetch("/api/admin/corrections?limit=1", { headers: { Authorization: `Bearer ${token()}` } });
  if (r.ok) { loggedIn(); show(); return; }
  // 403: a wrong token; 404 admin_off: no token set on the server; 429: too many wrong
  // ones from this address (the right one waits too)
  const body = await r.json().catch(() => ({}));
  logout();
  alert(r.status === 403 ? at("token_refused") : apiError(r.status, body)());
});
$("logout").addEventListener("click", () => logout());
$("query").addEventListener("submit", (ev) => { ev.preventDefault(); show(); });
$("next").addEventListener("click", () => show(true));
$("csv").addEventListener("click", downloadCsv);
$("void").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  if (!current) return;
  // a void cannot be undone (a second one is refused): asked once more
  if (!window.confirm(at("void_confirm", { room: current.room, n: current.hand_no }))) return;
  try {
    await call(`/api/admin/rooms/${current.room}/hands/${current.hand_no}/void`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ reason: $("void-reason").value, admin: $("void-admin").value || null }),
    });
    await openHand(current.room, current.hand_no);
    await reload(); // the list above counts the hand no more
  } catch (e) { showError(e); }
});
$("adjust").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  if (!current) return;
  const from = Number($("adjust-from").value);
  const to = Number($("adjust-to").value);
  if (from === to) { alert(at("adjust_same")); return; }
  const points = Number($("adjust-points").value);
  const name = (i) => $("adjust-from").querySelector(`option[value="${i}"]`).textContent;
  if (!window.confirm(at("adjust_confirm", { room: current.room, n: current.hand_no, from: name(from), to: name(to), points }))) return;
  try {
    await call(`/api/admin/rooms/${current.room}/hands/${current.hand_no}/adjustments`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ from, to, points, reason: $("adjust-reason").value, admin: $("adjust-admin").value || null }),
    });
    $("adjust-points").value = ""; $("adjust-reason").value = "";
    await openHand(current.room, current.hand_no);
    await reload(); // the list above counts the moved points
  } catch (e) { showError(e); }
});
setLang(getLang());
translatePage();
if (token()) { loggedIn(); show(); }
