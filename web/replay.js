// 回放: a finished hand watched step by step (GET /api/replays/{hand_id}?key=..., computed by
// the server's engine from the stored seed and actions). All hands open, rivers and melds,
// play / pause / step / speed, each seat's claim or pass, the settlement at the end. The wall
// is rebuilt in the page from the revealed seed (wall.js) and checked against the hash
// published at the deal. The admin (token in sessionStorage, /admin) needs no key.
import { tileEl, sortTiles, tileName, suitName, setTileGame, dieEl } from './tiles.js';
import { h } from './dom.js';
import { jintanWinEl, winnerHandText } from './jintan.js';
import { readySeats, readyMark, huangWhy, reasonNetsEl } from './settle.js';
import { seatPosition, turnedTile } from './seats.js';
import { t, translator, getLang, setLang, winKindText, botName, paymentReasonText } from './i18n.js';
import { checkSeed, verdictText } from './wall.js';

const $ = (id) => document.getElementById(id);

const ADMIN_TOKEN_KEY = 'zhuoji-admin-token'; // admin.js keeps the token there
const CLAIM_KINDS = new Set(['pass', 'pong', 'kong', 'win', 'chow']);
/** The events of a claim taken when its window closes. */
const CLAIM_EVENTS = new Set(['pong', 'kong', 'win', 'chow']);
/** The page's own words, by language (the table's come from i18n.js). */
const L = {
  zh: {
    title: '回放', room: '房间 {code} · 第 {n} 局',
    verifying: '正在验证牌墙…', wall_summary: '种子、哈希与牌墙（由种子在页面中重建）',
    first: '|◀ 开局', first_title: '回到开局', back_title: '后退一步', play: '播放', pause: '暂停',
    play_title: '播放 / 暂停', fwd_title: '前进一步', last: '结尾 ▶|', last_title: '跳到结尾', speed: '速度',
    pos: '步数', log: '全部步骤', start: '开局', step: '第 {n} 步', wall_left: '余牌 {n}', acting: '行动中',
    river: '牌河', waits: '听', ding_que: '定缺', bao_ting: '（报听）', seat: '座位{n}',
    settlement: '结算', to_settlement: '看结算 ↓', deltas_seat: '座位', deltas_points: '本局', by_reason: '明细', winners: '胡牌：', winner: '胡牌：', turned: '翻牌', chickens: '鸡',
    pay_from: '付', pay_to: '收', pay_points: '分', pay_reason: '原因', none: '无',
    ledger_ok: '✓ 回放的结算与账本一致', ledger_bad: '✗ 回放的结算与账本不一致',
    seed: '种子', hash_published: '开局公布的哈希', hash_computed: '页面计算的哈希', dealt: '{name} 起手', wall: '牌墙',
    bad_key: '回放链接无效：密钥不对（只有这一局的玩家拿到链接）。',
    hand_not_finished: '这一局还没有结束，结束后才能回放。',
    not_found: '没有这一局。', forbidden: '管理员令牌无效。', replay_failed: '这一局的记录无法回放。',
    load_failed: '无法加载回放。', network: '网络错误，无法加载回放。',
    pong: '碰', ming_dou: '明杠', men_dou: '暗杠', zhuan_wan_dou: '转弯杠', chow: '吃', kong: '杠',
    concealed_kong: '暗杠', exposed_kong: '明杠', added_kong: '补杠',
    rob_line: '抢杠：{who} 一家包三家，{each} ×3 = {total}',
  },
  en: {
    title: 'Replay', room: 'Room {code} · hand {n}',
    verifying: 'Checking the wall…', wall_summary: 'Seed, hashes and the wall (rebuilt in this page from the seed)',
    first: '|◀ Start', first_title: 'Back to the deal', back_title: 'One step back', play: 'Play', pause: 'Pause',
    play_title: 'Play / pause', fwd_title: 'One step on', last: 'End ▶|', last_title: 'Jump to the end', speed: 'Speed',
    pos: 'Step', log: 'All steps', start: 'Deal', step: 'Step {n}', wall_left: '{n} tiles left', acting: 'to act',
    river: 'Discards', waits: 'Waits', ding_que: 'void suit', bao_ting: ' (ready, 报听)', seat: 'Seat {n}',
    settlement: 'Settlement', to_settlement: 'Result ↓', deltas_seat: 'Seat', deltas_points: 'This hand', by_reason: 'By reason', winners: 'Winners: ', winner: 'Winner: ', turned: 'Turned', chickens: 'chickens',
    pay_from: 'Pays', pay_to: 'To', pay_points: 'Points', pay_reason: 'Reason', none: 'none',
    ledger_ok: '✓ The replay settles as the ledger has it', ledger_bad: '✗ The replay does not settle as the ledger has it',
    seed: 'Seed', hash_published: 'Hash published at the deal', hash_computed: 'Hash computed in this page',
    dealt: '{name} was dealt', wall: 'Wall',
    bad_key: 'This replay link is not valid: wrong key (only the hand\'s players get its link).',
    hand_not_finished: 'This hand is not over yet: it can be replayed once it ends.',
    not_found: 'There is no such hand.', forbidden: 'The admin token is not valid.',
    replay_failed: 'This hand\'s record cannot be replayed.',
    load_failed: 'The replay could not be loaded.', network: 'Network error: the replay could not be loaded.',
    pong: 'pong', ming_dou: 'exposed kong', men_dou: 'concealed kong', zhuan_wan_dou: 'added kong', chow: 'chow',
    kong: 'kong', concealed_kong: 'concealed kong', exposed_kong: 'exposed kong', added_kong: 'added kong',
    rob_line: 'Kong robbed (抢杠): {who} pays for all three, {each} ×3 = {total}',
  },
};
/** The page's word ``key`` in the page's language, ``{name}`` parts filled from ``params``. */
const rt = translator(L);

// viewer: the seat the replay is seen from (``?seat=``, else seat 0), at the bottom as at the table
const R = { data: null, frames: [], pos: 0, timer: null, speed: 1, viewer: 0 };
window.__replay = R; // for tests and debugging

function seatName(i) {
  const s = R.data && R.data.seats[i];
  if (s && s.bot) return botName(i); // 机器人3, as at the table
  return s && s.name ? s.name : rt('seat', { n: i + 1 });
}

function actionText(step, pos) {
  const base = stepText(step, pos);
  const flowers = step ? flowersText(step) : '';
  return base && flowers ? `${base} · ${flowers}` : base || flowers;
}

/** The flowers a step laid open and replaced (Jintan, jintan.md §J2): "乙 补花 春 梅", per seat. */
function flowersText(step) {
  const bySeat = new Map();
  for (const e of step.events || []) {
    if (e.type !== 'flower') continue;
    if (!bySeat.has(e.seat)) bySeat.set(e.seat, []);
    bySeat.get(e.seat).push(tileName(e.tile));
  }
  return [...bySeat].map(([seat, tiles]) => `${seatName(seat)} ${t('bu_hua')} ${tiles.join(' ')}`).join('，');
}

function stepText(step, pos) {
  if (!step) return rt('start');
  if (step.seat === null || step.seat === undefined) {
    // the room's own step, a claim window closing: the claim it took, or the next draw, or
    // the wall running out
    const ev = step.events.find((e) => CLAIM_EVENTS.has(e.type)) || step.events[0];
    if (!ev || ev.type === 'flower') return ''; // the flowers are said apart (flowersText)
    if (ev.type === 'huang_zhuang') return t('result_huang');
    const who = Array.isArray(ev.winners) ? ev.winners.map(seatName).join('、')
      : ev.seat !== undefined ? seatName(ev.seat) : '';
    const label = { draw: t('act_draw'), flower: t('bu_hua') }[ev.type] || t(`act_${ev.type}`);
    return `${who} ${label}${ev.tile ? ' ' + tileName(ev.tile) : ''}`;
  }
  const a = step.action || {};
  let label = t(`act_${a.kind}`);
  if (!label || label === `act_${a.kind}`) label = a.kind === 'ding_que' ? rt('ding_que') : a.kind;
  // the self-draw that ended the hand: as the settlement names it (杠上开花, not 自摸)
  const s = R.data && R.data.settlement;
  if (a.kind === 'self_draw' && pos === R.frames.length - 1 && s && s.win_kind && s.win_kind !== 'zi_mo') {
    label = winKindText(s.win_kind, true) || label;
  }
  const arg = a.tile ? ` ${tileName(a.tile)}` : a.suit ? ` ${suitName(a.suit)}` : a.tiles ? ` ${a.tiles.map(tileName).join('')}` : '';
  if (pos > 0 && R.frames[pos - 1].state.prompt === 'claim' && a.kind !== 'pass') {
    // an answer in a claim window is a wish: the window's close says whose claim was taken
    const lost = claimTaken(pos, step.seat) === false ? t('rp_claim_lost') : '';
    return `${seatName(step.seat)} ${t('rp_claims', { what: label + arg })}${lost}`;
  }
  return `${seatName(step.seat)} ${label}${arg}${a.bao_ting ? rt('bao_ting') : ''}`;
}

/** Whether the claim `seat` answered at frame `pos` was taken when its window closed: true,
 *  false (another's claim, or none, went first), or null (the window is not closed yet). */
function claimTaken(pos, seat) {
  for (let i = pos + 1; i < R.frames.length; i++) {
    const step = R.frames[i].step;
    if (step.seat !== null && step.seat !== undefined) continue;
    return step.events.some((e) => CLAIM_EVENTS.has(e.type)
      && (Array.isArray(e.winners) ? e.winners.includes(seat) : e.seat === seat));
  }
  return null;
}

/** Each seat's answer in the claim window open at frame `pos` (after the last discard or
 * kong that opened one): {seat: kind}. */
function answersAt(pos) {
  const out = {};
  for (let i = pos; i >= 1; i--) {
    const step = R.frames[i].step;
    if (step.seat === null || step.seat === undefined) {
      if (i < pos) break; // a window closed before this frame
      continue;
    }
    const kind = step.action && step.action.kind;
    if (!CLAIM_KINDS.has(kind)) break; // the discard (or kong) that opened the window
    if (!(step.seat in out)) out[step.seat] = kind;
  }
  return out;
}

/** Seat ``owner``'s meld ``m`` (of ``n`` seats), as the table draws it: the claimed tile
 *  turned towards the seat it came from (a chow's, the tile taken). */
function meldEl(m, owner, n) {
  const tiles = m.tiles || [];
  const box = h('span', { class: `rp-meld meld-${m.kind}`, dataset: { kind: m.kind, from: m.from ?? '' }, title: rt(m.kind) });
  const concealed = m.kind === 'men_dou' || m.kind === 'concealed_kong';
  const turn = turnedTile(m, owner, n);
  if (turn !== null) box.dataset.turned = String(turn);
  tiles.forEach((tl, i) => box.append(tileEl(concealed && i < 3 ? 'back' : tl, { size: 'xs', classes: i === turn ? ['turned-claim'] : [] })));
  box.append(h('small', { text: rt(m.kind) }));
  return box;
}

function seatEl(i, st, answers, lastDiscard) {
  const sv = st.seats[i];
  const acting = (st.acting || []).includes(i);
  const head = h('header', { class: 'rp-seat-head' },
    h('b', { text: seatName(i) }),
    h('span', { class: 'muted', text: t('winds')[(i - R.data.dealer + 4) % 4] || '' }),
    i === st.dealer ? h('span', { class: 'badge', text: t('dealer') }) : null,
    sv.ding_que ? h('span', { class: `badge que suit-${sv.ding_que}`, text: `${t('que')}${suitName(sv.ding_que)}` }) : null,
    sv.bao_ting ? h('span', { class: 'badge', text: t('bao_ting') }) : null,
    answers[i] ? h('span', { class: `rp-answer answer-${answers[i]}`, dataset: { answer: answers[i] }, text: t(`act_${answers[i]}`) }) : null,
    acting ? h('span', { class: 'rp-acting', text: rt('acting') }) : null);
  const hand = h('div', { class: 'rp-hand', dataset: { seat: String(i) } });
  for (const tl of sortTiles(sv.hand || [], sv.ding_que)) hand.append(tileEl(tl, { size: 'sm' }));
  if (sv.drawn) hand.append(h('span', { class: 'rp-gap' }), tileEl(sv.drawn, { size: 'sm', classes: ['drawn'] }));
  const melds = h('div', { class: 'rp-melds' }, ...(sv.melds || []).map((m) => meldEl(m, i, st.seats.length)));
  // the flowers laid open (Jintan), named as on the table
  if (sv.flowers && sv.flowers.length) {
    melds.append(h('span', { class: 'rp-flowers', dataset: { count: String(sv.flowers.length) } },
      h('small', { text: t('flowers') }), ...sv.flowers.map((f) => tileEl(f, { size: 'xs', classes: ['flower'] }))));
  }
  const claimed = new Set(sv.claimed || []);
  const river = h('div', { class: 'rp-river' });
  (sv.discards || []).forEach((tl, k) => {
    const classes = [];
    if (claimed.has(k)) classes.push('claimed');
    if (lastDiscard && lastDiscard.seat === i && k === sv.discards.length - 1) classes.push('last');
    river.append(tileEl(tl, { size: 'xs', classes }));
  });
  const waits = (sv.waits || []).length
    ? h('div', { class: 'rp-waits muted' }, `${rt('waits')} `, ...sv.waits.map((w) => tileEl(w.tile, { size: 'xs' })))
    : null;
  const pos = seatPosition(i, R.viewer, st.seats.length);
  return h('section', { class: `rp-seat pos-${pos} ${acting ? 'acting' : ''}`, id: `rp-seat-${i}`, dataset: { seat: String(i), pos } },
    head, hand, melds, h('div', { class: 'label muted', text: rt('river') }), river, waits);
}

function renderTable() {
  const frame = R.frames[R.pos];
  const st = frame.state;
  const answers = answersAt(R.pos);
  let lastDiscard = null;
  // the discard's claim window is still open (or the discard is the step shown)
  let open = st.prompt === 'claim';
  for (let i = R.pos; i >= 1; i--) {
    const a = R.frames[i].step.action;
    if (a && a.kind === 'discard') { lastDiscard = { seat: R.frames[i].step.seat, tile: a.tile, open: open || i === R.pos, now: i === R.pos }; break; }
    open = open && R.frames[i - 1].state.prompt === 'claim';
  }
  const table = $('rp-table');
  table.replaceChildren(...st.seats.map((_, i) => seatEl(i, st, answers, lastDiscard)));
  table.dataset.players = String(st.seats.length);
  $('rp-board').dataset.players = String(st.seats.length);
  $('rp-now').replaceChildren(
    h('span', { class: 'rp-step-no', text: rt('step', { n: R.pos }) }), ' ',
    h('b', { id: 'rp-action', text: actionText(frame.step, R.pos) }), ' ',
    // the discard the claims are about, as the table's centre shows it (its tile alone at
    // the discard's own step: the step's words say who discarded it)
    ...(lastDiscard && lastDiscard.open && lastDiscard.tile ? [h('span', { id: 'rp-discard', class: 'rp-discard', dataset: { tile: lastDiscard.tile } },
      lastDiscard.now ? null : h('span', { class: 'muted', text: `${seatName(lastDiscard.seat)} ${t('act_discard')}` }), tileEl(lastDiscard.tile, { size: 'sm' })), ' '] : []),
    h('span', { class: 'muted', text: rt('wall_left', { n: st.wall_count }) }),
    // the deal's dice (guiyang.md §2), at the deal as the table showed them
    ...(R.pos === 0 && Array.isArray(st.dice) ? [' ', h('span', { id: 'rp-dice', class: 'rp-dice', title: t('dice_title', { a: st.dice[0], b: st.dice[1] }) }, ...st.dice.map(dieEl))] : []),
    // at the end on a phone: the way down to the settlement under the table (replay.css)
    ...(R.pos === R.frames.length - 1 && R.data.settlement ? [toSettlementEl()] : []));
  $('rp-pos').value = String(R.pos);
  $('rp-count').textContent = `${R.pos} / ${R.frames.length - 1}`;
  $('rp-play').textContent = rt(R.timer ? 'pause' : 'play');
  $('rp-back').disabled = R.pos === 0;
  $('rp-first').disabled = R.pos === 0;
  const end = R.pos === R.frames.length - 1;
  $('rp-fwd').disabled = end;
  $('rp-last').disabled = end;
  $('rp-settlement').hidden = !end;
  document.body.dataset.atEnd = String(end);
  for (const li of $('rp-log').children) li.classList.toggle('current', Number(li.dataset.pos) === R.pos);
}

function toSettlementEl() {
  const btn = h('button', { type: 'button', id: 'rp-to-settlement', class: 'rp-to-settle', text: rt('to_settlement') });
  btn.addEventListener('click', () => $('rp-settlement').scrollIntoView({ behavior: 'smooth', block: 'start' }));
  return btn;
}

function renderSettlement() {
  const s = R.data.settlement;
  const box = $('rp-settlement');
  box.replaceChildren();
  if (!s) return;
  const winners = Array.isArray(s.winners) ? s.winners : [];
  box.append(h('h2', {}, `${rt('settlement')} `, h('span', { id: 'rp-result', class: `result ${s.result}`, dataset: { result: s.result }, text: s.result === 'win' ? t('result_win') : t('result_huang') })));
  // each seat: its points, and what they are made of by reason (胡 +4 · 鸡 +3 · 豆 -1), as
  // the table's 各家明细 sums them; Guiyang's seats but the winners marked 叫牌 / 未叫
  const dt = h('table', { id: 'rp-deltas', class: 'grid' }, h('thead', {}, h('tr', {}, h('th', { text: rt('deltas_seat') }), h('th', { text: rt('deltas_points') }), h('th', { text: rt('by_reason') }))));
  const tb = h('tbody');
  const ready = readySeats(s, R.data.game);
  const fmt = (d) => (d > 0 ? `+${d}` : String(d));
  s.deltas.forEach((d, i) => {
    tb.append(h('tr', { class: `rp-delta ${winners.includes(i) ? 'winner-row' : ''}`, dataset: { seat: String(i), delta: String(d) } },
      h('td', {}, seatName(i), readyMark(ready, i, winners)), h('td', { class: `num ${d > 0 ? 'pos' : d < 0 ? 'neg' : ''}`, text: fmt(d) }),
      h('td', { class: 'rp-parts' }, reasonNetsEl(s.payments, i, 'rp-nets'))));
  });
  dt.append(tb);
  box.append(h('div', { class: 'scroll-x' }, dt));
  const why = huangWhy(s.result, ready, s.deltas.length, R.data.game);
  if (why) box.append(h('p', { class: 'muted', id: 'rp-huang', dataset: { why }, text: t(why) }));
  if (winners.length) {
    const types = s.hand_types || {};
    // each winner's hand and how it won (平胡 · 自摸), as the table's settlement says it
    const how = (w) => [winnerHandText(types[w] ?? types[String(w)] ?? '', w, s.payments), winKindText(s.win_kind, true)].filter(Boolean).join(' · ');
    box.append(h('p', { id: 'rp-winners' }, rt(winners.length > 1 ? 'winners' : 'winner'), ...winners.map((w) => h('span', { class: 'winner', dataset: { seat: String(w) } }, seatName(w), ' ', how(w), ' '))));
    // Jintan: how each win counts (花, 番, 底 and the sum), once per winner
    for (const w of winners) {
      const hu = (s.payments || []).find((p) => p.to === w && p.reason === 'hu' && p.detail && typeof p.detail.hua_total === 'number');
      if (!hu) continue;
      const el = jintanWinEl(hu.detail);
      // 抢杠: the robbed seat pays the line three times (§J7), as the table says by the payer
      if (s.win_kind === 'qiang_gang' && Number.isInteger(hu.from)) {
        const each = Number(el.dataset.unit) * Number(el.querySelector('.formula').dataset.mult);
        el.append(h('small', { class: 'jt-rob', text: rt('rob_line', { who: seatName(hu.from), each, total: hu.points }) }));
      }
      box.append(h('p', { class: 'rp-win-count', dataset: { seat: String(w) } }, h('b', { text: seatName(w) }), ' ', el));
    }
  }
  if (s.turned || (s.chickens || []).length) {
    box.append(h('p', { class: 'rp-chickens' }, `${rt('turned')} `, s.turned ? tileEl(s.turned, { size: 'xs' }) : '—', ` ${rt('chickens')} `,
      ...(s.chickens || []).map((c) => tileEl(typeof c === 'string' ? c : c.tile, { size: 'xs' }))));
  }
  const pt = h('table', { id: 'rp-payments', class: 'grid' }, h('thead', {}, h('tr', {}, h('th', { text: rt('pay_from') }), h('th', { text: rt('pay_to') }), h('th', { text: rt('pay_points') }), h('th', { text: rt('pay_reason') }))));
  const pb = h('tbody');
  for (const p of s.payments || []) {
    // a chicken's line shows its tile (two chickens of one kind are told apart)
    const tile = p.detail && typeof p.detail.tile === 'string' && p.reason !== 'hu' ? tileEl(p.detail.tile, { size: 'xs' }) : null;
    pb.append(h('tr', { class: 'rp-payment', dataset: { from: String(p.from), to: String(p.to), points: String(p.points), reason: p.reason } },
      h('td', { text: seatName(p.from) }), h('td', { text: seatName(p.to) }), h('td', { class: 'num', text: String(p.points) }),
      h('td', {}, h('span', { class: 'rp-reason', text: paymentReasonText(p, R.data.options) }), tile)));
  }
  if (!(s.payments || []).length) pb.append(h('tr', {}, h('td', { colspan: '4', class: 'muted', text: rt('none') })));
  pt.append(pb);
  // every ledger row, folded (a hand of chickens has dozens), as at the table
  box.append(h('details', { id: 'rp-payments-box' }, h('summary', { text: `${t('payments')} (${(s.payments || []).length})` }), h('div', { class: 'scroll-x' }, pt)));
  box.append(h('p', { id: 'rp-ledger', class: `rp-ledger ${R.data.replay_ok ? 'ok' : 'bad'}`, dataset: { ok: String(R.data.replay_ok) },
    text: rt(R.data.replay_ok ? 'ledger_ok' : 'ledger_bad') }));
}


function go(pos) {
  R.pos = Math.max(0, Math.min(R.frames.length - 1, pos));
  if (R.pos === R.frames.length - 1) stop();
  renderTable();
}

function stop() {
  if (R.timer) clearTimeout(R.timer);
  R.timer = null;
}

function tickPlay() {
  if (R.pos >= R.frames.length - 1) { stop(); renderTable(); return; }
  go(R.pos + 1);
  if (R.timer) R.timer = setTimeout(tickPlay, 1000 / R.speed);
}

function play() {
  if (R.timer) { stop(); renderTable(); return; }
  if (R.pos >= R.frames.length - 1) R.pos = 0;
  R.timer = setTimeout(tickPlay, 1000 / R.speed);
  renderTable();
}

async function verify() {
  const d = R.data;
  const res = await checkSeed({
    game: d.game, seed: d.seed, publishedHash: d.initial.seed_hash, players: d.players, dealer: d.dealer, deal: d.deal,
  });
  const el = $('rp-verify');
  el.textContent = verdictText(res);
  el.className = `rp-verify ${res.ok ? 'ok' : 'bad'}`;
  el.dataset.ok = String(res.ok);
  $('rp-seed').replaceChildren(
    h('span', { class: 'label', text: `${rt('seed')} ` }), h('code', { id: 'rp-seed-value', text: d.seed }),
    h('br'), h('span', { class: 'label', text: `${rt('hash_published')} ` }), h('code', { text: d.initial.seed_hash }),
    h('br'), h('span', { class: 'label', text: `${rt('hash_computed')} ` }), h('code', { id: 'rp-hash-computed', text: res.hash || '—' }));
  const wall = $('rp-wall-tiles');
  wall.replaceChildren(...res.hands.map((hd, i) => h('div', { class: 'rp-dealt' }, h('span', { class: 'label', text: `${rt('dealt', { name: seatName(i) })} ` }), ...hd.map((tl) => tileEl(tl, { size: 'xs' })))),
    h('div', { class: 'rp-wall-row' }, h('span', { class: 'label', text: `${rt('wall')} ` }), ...res.wall.map((tl) => tileEl(tl, { size: 'xs' }))));
}

function showError(code, message) {
  const el = $('rp-error');
  el.hidden = false;
  el.dataset.code = code || '';
  el.textContent = (code && L.zh[code] && rt(code)) || message || rt('load_failed');
  $('rp-viewer').hidden = true;
}

async function load() {
  const params = new URLSearchParams(location.search);
  const hand = params.get('hand');
  const key = params.get('key');
  const seat = /^\d+$/.test(params.get('seat') || '') ? Number(params.get('seat')) : 0;
  if (!hand || !/^\d+$/.test(hand)) { showError('not_found'); return; }
  const headers = {};
  let url = `/api/replays/${hand}`;
  if (key) url += `?key=${encodeURIComponent(key)}`;
  else {
    let tok = null;
    try { tok = sessionStorage.getItem(ADMIN_TOKEN_KEY); } catch (e) { /* storage off */ }
    if (tok) headers.Authorization = `Bearer ${tok}`;
  }
  let res;
  let body;
  try {
    res = await fetch(url, { headers });
    body = await res.json();
  } catch (e) { showError('', rt('network')); return; }
  if (!res.ok) {
    const d = body && body.detail;
    showError(d && d.code, d && d.message);
    return;
  }
  R.data = body;
  R.viewer = seat < body.players ? seat : 0;
  setTileGame(body.game);
  staticTexts(body.game);
  R.frames = [{ step: null, state: body.initial }, ...body.steps.map((s) => ({ step: s, state: s.state }))];
  $('rp-info').textContent = rt('room', { code: body.room, n: body.hand_no }); // (the game: the brand)
  $('rp-pos').max = String(R.frames.length - 1);
  const log = $('rp-log');
  log.replaceChildren(...R.frames.map((f, i) => {
    const li = h('li', { dataset: { pos: String(i) } }, h('button', { type: 'button', class: 'linkish', text: actionText(f.step, i) }));
    li.firstChild.addEventListener('click', () => { stop(); go(i); });
    return li;
  }));
  $('rp-viewer').hidden = false;
  renderSettlement();
  renderTable();
  await verify();
}

function bind() {
  $('rp-play').addEventListener('click', play);
  $('rp-fwd').addEventListener('click', () => { stop(); go(R.pos + 1); });
  $('rp-back').addEventListener('click', () => { stop(); go(R.pos - 1); });
  $('rp-first').addEventListener('click', () => { stop(); go(0); });
  $('rp-last').addEventListener('click', () => { stop(); go(R.frames.length - 1); });
  $('rp-pos').addEventListener('input', (ev) => { stop(); go(Number(ev.target.value)); });
  $('rp-speed').addEventListener('change', (ev) => { R.speed = Number(ev.target.value) || 1; });
  document.addEventListener('keydown', (ev) => {
    if (!R.data || ev.target.tagName === 'SELECT' || ev.target.tagName === 'INPUT') return;
    if (ev.key === ' ') { ev.preventDefault(); play(); }
    else if (ev.key === 'ArrowRight') { stop(); go(R.pos + 1); }
    else if (ev.key === 'ArrowLeft') { stop(); go(R.pos - 1); }
  });
}

/** The page's fixed words in its language; the page's name is the game's, as at its table. */
function staticTexts(game = 'guiyang') {
  const home = t(game === 'jintan' ? 'brand_jintan' : 'brand_guiyang');
  $('home-link').textContent = home;
  document.title = `${rt('title')} · ${home}`;
  document.querySelector('.rp-title').textContent = rt('title');
  $('rp-verify').textContent = rt('verifying');
  document.querySelector('#rp-wall summary').textContent = rt('wall_summary');
  document.querySelector('.rp-log-box summary').textContent = rt('log');
  for (const [id, text, title] of [['rp-first', 'first', 'first_title'], ['rp-back', null, 'back_title'],
    ['rp-play', 'play', 'play_title'], ['rp-fwd', null, 'fwd_title'], ['rp-last', 'last', 'last_title']]) {
    if (text) $(id).textContent = rt(text);
    $(id).title = rt(title);
  }
  document.querySelector('.rp-speed').firstChild.textContent = `${rt('speed')} `;
  $('rp-pos').setAttribute('aria-label', rt('pos'));
}

/** The top bar's and the controls' heights as CSS variables: on a phone the table takes the
 *  screen between them (replay.css). */
function watchBars() {
  const root = document.documentElement.style;
  const set = () => {
    root.setProperty('--rp-top', `${$('topbar').offsetHeight}px`);
    root.setProperty('--rp-bar', `${$('rp-controls').offsetHeight}px`);
  };
  if (typeof ResizeObserver === 'function') {
    const ro = new ResizeObserver(set);
    ro.observe($('topbar'));
    ro.observe($('rp-controls'));
  }
  addEventListener('resize', set);
  set();
}

setLang(getLang());
staticTexts();
bind();
watchBars();
load();
