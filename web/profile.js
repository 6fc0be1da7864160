// The player's profile in the lobby (issue 14): made on the first visit, its player code shown
// to copy to another device, a code typed here brings that profile back, the name field renames
// it, and seats this browser took before profiles existed are claimed for it.
import { request, profile, ensureProfile, store, ApiError } from './api.js';
import { getLang } from './i18n.js';

const L = {
  zh: {
    player_code: '玩家码', copy: '复制', copied: '已复制', restore_open: '在其他设备玩过？',
    restore_label: '输入玩家码，找回你的战绩', restore: '找回', restored: '已找回：{name}',
    bad_code: '这个玩家码不存在', code_hint: '玩家码就是你的账号，请勿发给别人',
  },
  en: {
    player_code: 'Player code', copy: 'Copy', copied: 'Copied', restore_open: 'Played on another device?',
    restore_label: 'Enter your player code to bring your records here', restore: 'Restore', restored: 'Restored: {name}',
    bad_code: 'No player has this code', code_hint: 'Your player code is your account: keep it to yourself',
  },
};
export const pt = (k, params = {}) => {
  let s = (L[getLang()] || L.zh)[k] || L.zh[k] || k;
  for (const [a, b] of Object.entries(params)) s = s.replace(`{${a}}`, String(b));
  return s;
};

const $ = (sel) => document.querySelector(sel);

/** A typed code in its shown form (upper case, groups of five); '' if it cannot be one. */
export function formatCode(typed) {
  const raw = String(typed || '').toUpperCase().replace(/[^0-9A-Z]/g, '');
  if (raw.length !== 20) return '';
  return raw.match(/.{5}/g).join('-');
}

function translate() {
  document.querySelectorAll('[data-pt]').forEach((el) => { el.textContent = pt(el.dataset.pt); });
  document.querySelectorAll('[data-pt-title]').forEach((el) => { el.title = pt(el.dataset.ptTitle); });
}

function render() {
  const p = profile.get();
  const line = $('#profile-line');
  if (!line) return;
  line.hidden = !p;
  if (!p) return;
  $('#player-code').textContent = p.code;
  line.dataset.profileId = String(p.id);
}

function message(text, kind = '') {
  const el = $('#restore-msg');
  el.textContent = text;
  el.dataset.kind = kind;
  el.hidden = !text;
}

async function restore(ev) {
  ev.preventDefault();
  const code = formatCode($('#restore-code').value);
  if (!code) { message(pt('bad_code'), 'error'); return; }
  try {
    const me = await request('GET', '/api/me', undefined, code);
    profile.set({ id: me.id, name: me.name, code });
    store.setName(me.name);
    $('#name').value = me.name;
    $('#restore-code').value = '';
    message(pt('restored', { name: me.name }), 'info');
    render();
    claimSeats();
  } catch (e) {
    message(e instanceof ApiError && (e.status === 403 || e.status === 401) ? pt('bad_code') : e.message, 'error');
  }
}

async function rename() {
  const p = profile.get();
  const name = $('#name').value.trim();
  if (!p || !name || name === p.name) return;
  try {
    const me = await request('PATCH', '/api/me', { name }, p.code);
    profile.set({ ...p, name: me.name });
  } catch (e) { /* the next join renames it too */ }
}

/** Seats this browser holds tokens of (localStorage gy.seat.<code>) given to the profile,
 * once each: those taken before profiles existed appear in 战绩 then. */
async function claimSeats() {
  const p = profile.get();
  if (!p) return;
  let done = [];
  try { done = JSON.parse(localStorage.getItem('gy.claimed') || '[]'); } catch (e) { done = []; }
  const keys = [];
  try { for (let i = 0; i < localStorage.length; i++) keys.push(localStorage.key(i)); } catch (e) { return; }
  for (const key of keys) {
    if (!key || !key.startsWith('gy.seat.')) continue;
    const room = key.slice('gy.seat.'.length);
    const mark = `${p.id}:${room}`;
    if (done.includes(mark)) continue;
    const seat = store.seat(room);
    if (!seat || !seat.token) continue;
    try {
      await request('POST', '/api/me/claim', { room, token: seat.token }, p.code);
    } catch (e) {
      if (!(e instanceof ApiError) || e.status === 0 || e.status >= 500) continue; // try again later
    }
    done.push(mark);
  }
  try { localStorage.setItem('gy.claimed', JSON.stringify(done)); } catch (e) { /* ignore */ }
}

function bind() {
  $('#copy-player-code').addEventListener('click', async () => {
    const p = profile.get();
    if (!p) return;
    try { await navigator.clipboard.writeText(p.code); message(pt('copied'), 'info'); } catch (e) { /* no clipboard */ }
  });
  $('#restore-open').addEventListener('click', () => {
    $('#restore-form').hidden = !$('#restore-form').hidden;
    if (!$('#restore-form').hidden) $('#restore-code').focus();
  });
  $('#restore-form').addEventListener('submit', restore);
  $('#name').addEventListener('change', rename);
  $('#lang-toggle').addEventListener('click', translate);
}

async function boot() {
  bind();
  translate();
  render();
  try {
    const p = await ensureProfile($('#name') && $('#name').value);
    if (p && !$('#name').value) { $('#name').value = p.name; store.setName(p.name); }
  } catch (e) { /* offline: made at the first join */ }
  render();
  claimSeats();
}

boot();
