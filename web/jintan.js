// Jintan's (金坛麻将) words and win line, shared by the table and 回放.
import { h } from './dom.js';
import { t } from './i18n.js';
import { tileName } from './tiles.js';

/** Jintan's 番 patterns by name (jintan.md §J6). */
export const FAN_NAMES = { hun_yi_se: '混一色', dui_dui_hu: '对对胡', gang_kai: '杠开', du_diao: '独吊', qing_yi_se: '清一色', qi_dui: '七对' };
/** Jintan's 番 by pattern (jintan.md §J6). */
export const JT_FANS = { hun_yi_se: 1, dui_dui_hu: 1, gang_kai: 1, du_diao: 1, qing_yi_se: 2, qi_dui: 2 };
/** What each 花 item of a win is (jintan.md §J5): a flower is named by its tile alone. */
const HUA_ITEMS = {
  flower: '', honour_pong: '碰', honour_concealed_triplet: '暗刻', honour_exposed_kong: '明杠',
  honour_concealed_kong: '暗杠', exposed_kong: '明杠', concealed_kong: '暗杠',
};

/** A Jintan win line's facts (jintan.md §J5-§J6): 花 by item, 番 by pattern, the formula and
 * whether the cap (封顶 ×4) applied. */
export function jintanWinEl(d) {
  const box = h('span', { class: 'jt-win' });
  const hua = (d.hua || []).map((x) => `${x.what === 'flower' ? '' : (HUA_ITEMS[x.what] || x.what)}${tileName(x.tile)} ${x.hua}`);
  box.append(h('small', { class: 'hua', dataset: { hua: String(d.hua_total) }, text: `${t('hua')} ${d.hua_total}${hua.length ? ` (${hua.join(', ')})` : ''}` }));
  const fans = (d.fan || []).map((f) => FAN_NAMES[f] || f);
  box.append(h('small', { class: 'fan', dataset: { fan: String(d.fan_total) }, text: `${t('fan')} ${d.fan_total}${fans.length ? ` (${fans.join(' ')})` : ''}` }));
  const unit = d.base + d.hua_total * d.flower_value;
  const mult = 2 ** Math.min(d.fan_total, 2);
  // named parts, as the apps spell the sum out: 底10 + 1花×5 = 15 · 0番 ×1 = 15
  box.append(h('small', { class: 'formula', dataset: { unit: String(unit), mult: String(mult) }, text: t('jt_formula', {
    base: d.base, hua: d.hua_total, value: d.flower_value, unit, fan: d.fan_total, mult, total: unit * mult,
  }) }));
  if (d.capped) box.append(h('small', { class: 'badge capped', text: t('capped') }));
  box.dataset.unit = String(unit);
  return box;
}

