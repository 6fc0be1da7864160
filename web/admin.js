// The admin console (/admin): the admin API's lists with filters, pages, CSV download, a
// hand's breakdown and void. The token is kept in sessionStorage only (gone with the tab).
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

function token() { return sessionStorage.getItem(KEY); }

async function call(path, opts = {}) {
  const r = await fetch(path, {
    ...opts,
    headers: { Authorization: `Bearer ${token()}`, ...(opts.headers || {}) },
  });
  if (r.status === 403) { logout("the token was refused"); throw new Error("forbidden"); }
  if (!r.ok) {
    const body = await r.json().catch(() => ({}));
    throw new Error((body.detail && body.detail.message) || `HTTP ${r.status}`);
  }
  return r;
}

function params(extra = {}) {
  const p = new URLSearchParams();
  const list = $("list").value;
  const name = $("name").value, room = $("room").value.trim(), game = $("game").value.trim();
  // "#17": the player profile with id 17 (issue 14); anything else: the exact seat name
  const profile = /^#(\d+)$/.exec(name.trim());
  const byPlayer = list === "player" || list === "rooms" || list === "ledger";
  if (profile && byPlayer) p.set("profile", profile[1]);
  else if (list === "player") p.set("name", name);
  else if (name && byPlayer) p.set("player", name);
  if (room && (list === "ledger" || list === "corrections")) p.set("room", room);
  if (game && (list === "rooms" || list === "leaderboard")) p.set("game", game);
  if ($("since").value) p.set("since", `${$("since").value}T00:00:00Z`);
  if ($("until").value) p.set("until", `${$("until").value}T00:00:00Z`);
  p.set("limit", $("limit").value || "50");
  for (const [k, v] of Object.entries(extra)) if (v != null) p.set(k, v);
  return p;
}

function cell(v, k) {
  // a player profile's id as "#17" (what the player filter takes); "by name" for a seat without
  // a profile (taken before profiles existed, or a bot), counted by its exact name
  if (k === "profile") return v === null || v === undefined ? "by name" : `#${v}`;
  if (v === null || v === undefined) return "";
  if (Array.isArray(v)) return v.map((x) => (typeof x === "object" ? x.name : x)).join(" ");
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

function table(el, rows, onRow) {
  el.replaceChildren();
  if (!rows.length) return;
  const keys = Object.keys(rows[0]).filter((k) => k !== "options" && k !== "detail");
  const head = el.insertRow();
  for (const k of keys) { const th = document.createElement("th"); th.textContent = k; head.append(th); }
  for (const row of rows) {
    const tr = el.insertRow();
    if (row.voided) tr.className = "voided";
    for (const k of keys) {
      const td = tr.insertCell();
      td.textContent = cell(row[k], k);
      if (typeof row[k] === "number" && k !== "profile") td.className = "num";
    }
    if (onRow) { tr.style.cursor = "pointer"; tr.addEventListener("click", () => onRow(row)); }
  }
}

let shown = [];
async function show(more = false) {
  $("error").textContent = "";
  const list = $("list").value;
  if (!more) { shown = []; cursor = null; }
  try {
    const r = await call(`${PATHS[list]}?${params({ cursor: more ? cursor : null })}`);
    const body = await r.json();
    shown = shown.concat(body.rooms || body.rows);
    cursor = body.next;
    $("next").hidden = !cursor;
    $("count").textContent = `${shown.length} rows`;
    const open = (row) => (row.room || row.code) && row.hand_no ? openHand(row.room, row.hand_no)
      : row.code ? openRoom(row.code) : list === "leaderboard" ? openPlayer(row) : null;
    table($("rows"), shown, open);
    if (!more) $("totals").textContent = "";
    if (list === "player" && !more) {
      const t = await (await call(`/api/admin/player?${params()}`)).json();
      const who = t.profile == null ? `${t.player} (name, no profile)` : `${t.player} #${t.profile}`;
      $("totals").textContent = `${who} · hands ${t.hands} · wins ${t.wins} · points ${t.points}`
        + ` · ${JSON.stringify(t.by_reason)}`;
    }
  } catch (e) { $("error").textContent = e.message; }
}

// a leaderboard row: that player's hands and totals (by profile id, or by the seat name for a
// row without profile)
function openPlayer(row) {
  $("list").value = "player";
  $("name").value = row.profile == null ? row.player : `#${row.profile}`;
  show();
}

async function openRoom(code) {
  const body = await (await call(`/api/admin/rooms/${code}/hands?limit=1000`)).json();
  shown = body.rows; cursor = null; $("next").hidden = true;
  $("count").textContent = `room ${code}: ${shown.length} hands`;
  table($("rows"), shown, (row) => openHand(code, row.hand_no));
}

let current = null;
async function openHand(code, handNo) {
  try {
    const h = await (await call(`/api/admin/rooms/${code}/hands/${handNo}`)).json();
    current = h;
    $("hand").hidden = false;
    $("hand-title").textContent =
      `Room ${h.room} hand ${h.hand_no}${h.voided ? " (voided)" : ""} · ${h.result || ""}`;
    table($("hand-deltas"), h.seats.map((s) => ({
      seat: s.seat, name: s.name, delta: h.deltas[s.seat], adjust: h.adjust[s.seat],
      counts: h.effective[s.seat],
    })));
    table($("hand-payments"), h.payments);
    $("void").hidden = h.voided;
    $("hand-replay").textContent = h.replay ? JSON.stringify(h.replay, null, 1)
      : "In play: its seed and replay show once the hand has ended.";
    const link = $("hand-replay-link"); // the 回放 viewer; it reads the token from sessionStorage
    link.hidden = !h.hand_id || !h.ended_at;
    link.href = h.hand_id ? `/replay?hand=${h.hand_id}` : "#";
  } catch (e) { $("error").textContent = e.message; }
}

async function downloadCsv() {
  try {
    const r = await call(`${PATHS[$("list").value]}?${params({ format: "csv", limit: 1000 })}`);
    const url = URL.createObjectURL(await r.blob());
    const a = document.createElement("a");
    a.href = url; a.download = `${$("list").value}.csv`; a.id = "csv-link";
    document.body.append(a); a.click(); a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  } catch (e) { $("error").textContent = e.message; }
}

function logout(why) {
  sessionStorage.removeItem(KEY);
  $("console").hidden = true; $("login").hidden = false;
  if (why) $("error").textContent = why;
}

function loggedIn() {
  $("login").hidden = true; $("console").hidden = false;
  $("who").textContent = "logged in";
}

$("login").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  sessionStorage.setItem(KEY, $("token").value);
  $("token").value = "";
  const r = await fetch("/api/admin/corrections?limit=1", { headers: { Authorization: `Bearer ${token()}` } });
  if (r.ok) { loggedIn(); show(); } else { logout(); alert("token refused"); }
});
$("logout").addEventListener("click", () => logout());
$("query").addEventListener("submit", (ev) => { ev.preventDefault(); show(); });
$("next").addEventListener("click", () => show(true));
$("csv").addEventListener("click", downloadCsv);
$("void").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  if (!current) return;
  try {
    await call(`/api/admin/rooms/${current.room}/hands/${current.hand_no}/void`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ reason: $("void-reason").value, admin: $("void-admin").value || null }),
    });
    await openHand(current.room, current.hand_no);
  } catch (e) { $("error").textContent = e.message; }
});
if (token()) { loggedIn(); show(); }
