// Jintan's (金坛麻将) words and win line, shared by the table and 回放.
import { h } from './dom.js';
import { t, getLang, termText, handTypeText } from './i18n.js';
import { tileName } from './tiles.js';

/** Jintan's 番 patterns by name (jintan.md §J6). */
const FAN_NAMES = { hun_yi_se: '混一色', dui_dui_hu: '对对胡', gang_kai: '杠开', du_diao: '独吊', qing_yi_se: '清一色', qi_dui: '七对' };
/** Jintan's 番 by pattern (jintan.md §J6). */
export const JT_FANS = { hun_yi_se: 1, dui_dui_hu: 1, gang_kai: 1, du_diao: 1, qing_yi_se: 2, qi_dui: 2 };
/** A 番 pattern's name in the page's language: 混一色, "half flush (混一色)". */
export const fanName = (k) => termText(k, FAN_NAMES[k] || k);
/** A winner's hand as its badge names it: a Jintan hand of type ``standard`` or ``qi_dui``
 * by its 番 (清一色, 混一色 对对胡, 七对 混一色), or 鸡胡 with none (jintan.md §J6; '' for
 * 杠开 alone), from the settlement's ``payments`` (the winner ``w``'s 胡 line's detail);
 * any other type (八花) by its name. */
export function winnerHandText(ht, w, payments) {
  if (ht !== 'standard' && ht !== 'qi_dui') return handTypeText(ht);
  const hu = (payments || []).find((p) => p.to === w && p.reason === 'hu' && p.detail && Array.isArray(p.detail.fan));
  if (!hu) return handTypeText(ht);
  if (!hu.detail.fan.length) return termText('ji_hu', '鸡胡');
  // (杠开 is said by how it was won, 杠上开花)
  return hu.detail.fan.filter((k) => k !== 'gang_kai').map(fanName).join(' ');
}

/** What each 花 item of a win is (jintan.md §J5), put before its tile: a flower is named by
 * its tile alone. */
const HUA_ITEMS = {
  zh: {
    flower: '', honour_pong: '碰', honour_concealed_triplet: '暗刻', honour_exposed_kong: '明杠',
    honour_added_kong: '补杠', honour_concealed_kong: '暗杠', exposed_kong: '明杠', added_kong: '补杠',
    concealed_kong: '暗杠',
  },
  en: {
    flower: '', honour_pong: 'pong ', honour_concealed_triplet: 'concealed triplet ',
    honour_exposed_kong: 'exposed kong ', honour_added_kong: 'added kong ',
    honour_concealed_kong: 'concealed kong ', exposed_kong: 'exposed kong ',
    added_kong: 'added kong ', concealed_kong: 'concealed kong ',
  },
};

/** A Jintan win line's facts (jintan.md §J5-§J6): 花 by item, 番 by pattern, the formula and
 * whether the cap (封顶 ×4) applied. */
export function jintanWinEl(d) {
  const box = h('span', { class: 'jt-win' });
  const en = getLang() === 'en';
  const items = HUA_ITEMS[en ? 'en' : 'zh'];
  // zh: 花 2 (春 1, 碰中 1) · 番 2 (混一色 对对胡); en: the names carry their own brackets
  const parts = (list, sep) => (!list.length ? '' : en ? `: ${list.join(', ')}` : ` (${list.join(sep)})`);
  const hua = (d.hua || []).map((x) => `${items[x.what] ?? `${x.what} `}${tileName(x.tile)} ${x.hua}`);
  box.append(h('small', { class: 'hua', dataset: { hua: String(d.hua_total) }, text: `${t('hua')} ${d.hua_total}${parts(hua, ', ')}` }));
  const fans = (d.fan || []).map(fanName);
  box.append(h('small', { class: 'fan', dataset: { fan: String(d.fan_total) }, text: `${t('fan')} ${d.fan_total}${parts(fans, ' ')}` }));
  const unit = d.base + d.hua_total * d.flower_value;
  // eight flowers are paid at the cap whatever their 番 (§J2): ×4, said as 八花封顶
  const baHua = d.win === 'ba_hua';
  const mult = baHua ? 4 : 2 ** Math.min(d.fan_total, 2);
  // named parts, as the apps spell the sum out: 底10 + 1花×5 = 15 · ×1 (0番) = 15 (the
  // multiplier first: "0番 ×1" read as if no 番 paid nothing)
  box.append(h('small', { class: 'formula', dataset: { unit: String(unit), mult: String(mult) }, text: t(baHua ? 'jt_formula_ba_hua' : 'jt_formula', {
    base: d.base, hua: d.hua_total, value: d.flower_value, unit, fan: d.fan_total, mult, total: unit * mult,
  }) }));
  if (d.capped) box.append(h('small', { class: 'badge capped', text: t('capped') }));
  box.dataset.unit = String(unit);
  return box;
}

