// Who was ready (叫牌) at a Guiyang hand's end, as the table's settlement and 回放 show it.
import { h } from './dom.js';
import { t } from './i18n.js';

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

/** Why a 黄庄 of ``n`` seats paid what it paid (spec §12), an i18n key: nobody or everybody
 * ready pays nothing, else the seats not ready pay the ready ones (查叫). */
export function huangWhy(ready, n) {
  return ready.size === n ? 'huang_all_ready' : ready.size === 0 ? 'huang_none_ready' : 'huang_cha_jiao';
}
