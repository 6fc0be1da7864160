// Pieces of a settlement that the table's settlement and 回放 both show: who was ready
// (叫牌) at a Guiyang hand's end, and each seat's points by reason.
import { h } from './dom.js';
import { t, reasonText } from './i18n.js';

/** Payment reasons in the order a seat's points are explained (胡 first, then 豆, 鸡 ...). */
export const REASON_ORDER = ['hu', 'ying_bao', 'sha_bao', 'dou', 'ji', 'chong_feng_ji', 'ze_ren_ji', 'cha_jiao', 'cha_que', 'yuan_que'];

/** Seat ``i``'s points by reason (胡 +4 · 鸡 +3 · 豆 -1) over ``payments``, each a
 * ``span.sg-net`` (``data-reason``, ``data-points``), in `REASON_ORDER`, zero sums left out. */
export function reasonNets(payments, i) {
  const nets = new Map();
  for (const p of payments || []) {
    const sign = p.to === i ? 1 : p.from === i ? -1 : 0;
    if (sign) nets.set(p.reason, (nets.get(p.reason) || 0) + sign * p.points);
  }
  const rank = (r) => (REASON_ORDER.includes(r) ? REASON_ORDER.indexOf(r) : REASON_ORDER.length);
  return [...nets].filter(([, v]) => v !== 0).sort(([a], [b]) => rank(a) - rank(b)).map(([r, v]) => h('span', { class: 'sg-net', dataset: { reason: r, points: String(v) } }, `${reasonText(r)} ${v > 0 ? '+' : ''}${v}`));
}

/** `reasonNets` joined by " · " in one element of class ``cls`` (null when it has none). */
export function reasonNetsEl(payments, i, cls) {
  const parts = reasonNets(payments, i);
  return parts.length ? h('span', { class: cls }, ...parts.flatMap((x, k) => (k ? [' · ', x] : [x]))) : null;
}

/** The settlement ``s``'s ready seats as a Set, for a Guiyang hand (spec §6.3: they decide
 * 包鸡 and 查叫); null for Jintan (no such payments: its `ready` is its winners) or a
 * settlement without the field. */
export function readySeats(s, game) {
  return game === 'jintan' || !Array.isArray(s.ready) ? null : new Set(s.ready);
}

/** Seat ``i``'s 叫牌 / 未叫 badge, or null (a winner, or no `ready` to go by). */
export function readyMark(ready, i, winners) {
  if (!ready || winners.includes(i)) return null;
  const yes = ready.has(i);
  return h('small', { class: `badge ${yes ? 'ready-tag' : 'not-ready-tag'}`, dataset: { ready: String(yes) }, text: t(yes ? 'ready_tag' : 'not_ready_tag') });
}

/** Why a hand of ``n`` seats that ended with ``result`` paid what it paid, if a 黄庄: an
 * i18n key, else null. Guiyang (spec §12, ``ready`` from `readySeats`): nobody or everybody
 * ready pays nothing, else the seats not ready pay the ready ones (查叫). Jintan (jintan.md
 * §J7, §J8): nothing is paid, the dealer deals again. */
export function huangWhy(result, ready, n, game) {
  if (result === 'win') return null;
  if (game === 'jintan') return 'huang_jintan';
  if (!ready) return null;
  return ready.size === n ? 'huang_all_ready' : ready.size === 0 ? 'huang_none_ready' : 'huang_cha_jiao';
}
