// Tile rendering: every tile is a small DOM element whose face is an inline SVG drawn here
// (no images, nothing fetched); 万 and the honours use the page's CJK font.

import { getLang } from './i18n.js';

const SUIT_CHAR = { m: '万', p: '筒', s: '条', z: '字', f: '花' };
const SUIT_ORDER = { m: 0, p: 1, s: 2, z: 3, f: 4 };
const NUMERALS = ['一', '二', '三', '四', '五', '六', '七', '八', '九'];
// 1z..7z: 东南西北 白发中 (jintan.md §J1); 1f..8f: 春夏秋冬 梅兰竹菊.
const HONOURS = ['东', '南', '西', '北', '白', '发', '中'];
const FLOWERS = ['春', '夏', '秋', '冬', '梅', '兰', '竹', '菊'];
// the same in English, for text in an English page (the faces stay as they are)
const SUIT_EN = { m: 'characters', p: 'dots', s: 'bamboo' };
const HONOURS_EN = ['East', 'South', 'West', 'North', 'White dragon', 'Green dragon', 'Red dragon'];
const FLOWERS_EN = ['Spring', 'Summer', 'Autumn', 'Winter', 'Plum', 'Orchid', 'Bamboo', 'Chrysanthemum'];

export function suitOf(tile) { return tile ? tile[tile.length - 1] : ''; }
export function rankOf(tile) { return tile ? parseInt(tile, 10) : 0; }
export function suitChar(s) { return SUIT_CHAR[s] || s; }
/** A suit's name for text in the page's language: 万 / 筒 / 条, in English characters / dots /
 *  bamboo (as `tileName` names the tiles). */
export function suitName(s) { return getLang() === 'en' ? SUIT_EN[s] || s : suitChar(s); }

// 1条 is 幺鸡 in Guiyang, where it is the chicken; Jintan players call it 一条 (1条).
let yaoJi = true;

/** The game whose names `tileName` uses (a room's or a replay's ``game``). */
export function setTileGame(game) { yaoJi = game !== 'jintan'; }

/** A tile's name in the page's language, for text and titles: 3万, 幺鸡 (Guiyang's 1条), 北,
 *  菊; in English "3 characters", "North", "Chrysanthemum". */
export function tileName(tile) {
  if (!tile) return '';
  const s = suitOf(tile);
  const r = rankOf(tile);
  if (getLang() === 'en') {
    if (s === 'z') return HONOURS_EN[r - 1] || tile;
    if (s === 'f') return FLOWERS_EN[r - 1] || tile;
    return SUIT_EN[s] ? `${r} ${SUIT_EN[s]}` : tile;
  }
  if (tile === '1s' && yaoJi) return '幺鸡';
  if (s === 'z') return HONOURS[r - 1] || tile;
  if (s === 'f') return FLOWERS[r - 1] || tile;
  return `${r}${suitChar(s)}`;
}

/** Sort key: void suit last (if given), then suit m, p, s, honours, flowers, then rank. */
export function sortTiles(tiles, voidSuit) {
  return [...tiles].sort((a, b) => {
    const va = suitOf(a) === voidSuit ? 1 : 0;
    const vb = suitOf(b) === voidSuit ? 1 : 0;
    if (va !== vb) return va - vb;
    const sa = SUIT_ORDER[suitOf(a)] ?? 9;
    const sb = SUIT_ORDER[suitOf(b)] ?? 9;
    if (sa !== sb) return sa - sb;
    return rankOf(a) - rankOf(b);
  });
}

// ------------------------------------------------------------------ faces (SVG, 30 x 41)
const BLUE = '#1d4ed8';
const GREEN = '#15803d';
const RED = '#c62828';
const INK = '#1f2937';

const BIRD = `<g transform="translate(0 5) scale(0.75)">
  <path d="M6 27 L1 33 L11 30 Z" fill="#1f7a3a"/>
  <ellipse cx="19" cy="25" rx="12" ry="8" fill="#1f9a4a"/>
  <path d="M12 24 Q19 15 27 24 Q19 28 12 24 Z" fill="${RED}"/>
  <circle cx="29" cy="14" r="6" fill="#1f9a4a"/>
  <circle cx="31" cy="13" r="1.6" fill="#fff"/>
  <circle cx="31.4" cy="13" r="0.8" fill="#111"/>
  <path d="M34.5 14 L40 16 L34.5 17.5 Z" fill="#e0a100"/>
  <path d="M26 8 Q29 4 31 8" stroke="${RED}" stroke-width="2" fill="none"/>
  <path d="M16 33 L15 38 M22 33 L23 38" stroke="#8a5a00" stroke-width="1.6"/></g>`;

// 筒: circle centres and colours per rank, as the tiles are printed.
const DOTS = {
  2: [[15, 11, GREEN], [15, 30, BLUE]],
  3: [[7.5, 8.5, BLUE], [15, 20.5, RED], [22.5, 32.5, GREEN]],
  4: [[9, 11, BLUE], [21, 11, GREEN], [9, 30, GREEN], [21, 30, BLUE]],
  5: [[8, 9, BLUE], [22, 9, GREEN], [15, 20.5, RED], [8, 32, GREEN], [22, 32, BLUE]],
  6: [[9, 8, GREEN], [21, 8, GREEN], [9, 21, RED], [21, 21, RED], [9, 33, RED], [21, 33, RED]],
  7: [[7, 6.5, GREEN], [15, 10.5, GREEN], [23, 14.5, GREEN],
    [9, 24, RED], [21, 24, RED], [9, 34, RED], [21, 34, RED]],
  8: [[9, 6], [21, 6], [9, 15.6], [21, 15.6], [9, 25.2], [21, 25.2], [9, 34.8], [21, 34.8]]
    .map(([x, y]) => [x, y, BLUE]),
  9: [7, 15, 23].flatMap((x) => [8.5, 20.5, 32.5].map((y) => [x, y, y === 20.5 ? RED : (y < 20 ? BLUE : GREEN)])),
};
const DOT_R = { 2: 6.2, 3: 5, 4: 5.6, 5: 4.8, 6: 4.6, 7: 3.9, 8: 3.9, 9: 4.2 };

function dotsFace(r) {
  if (r === 1) {
    return `<circle cx="15" cy="20.5" r="11.5" fill="none" stroke="${GREEN}" stroke-width="2.2"/>
      <circle cx="15" cy="20.5" r="8" fill="${BLUE}"/><circle cx="15" cy="20.5" r="5" fill="#fff"/>
      <circle cx="15" cy="20.5" r="3" fill="${RED}"/>`;
  }
  const rad = DOT_R[r];
  return DOTS[r].map(([x, y, c]) => `<circle cx="${x}" cy="${y}" r="${rad}" fill="none" stroke="${c}" stroke-width="${rad * 0.42}"/>`
    + `<circle cx="${x}" cy="${y}" r="${rad * 0.32}" fill="${c}"/>`).join('');
}

// 条: stick centres per rank (red sticks where the printed tiles have them).
const STICKS = {
  2: [[15, 11], [15, 30]],
  3: [[15, 11], [9, 30], [21, 30]],
  4: [[9, 11], [21, 11], [9, 30], [21, 30]],
  5: [[8, 11], [22, 11], [15, 20.5, RED], [8, 30], [22, 30]],
  6: [[7, 11], [15, 11], [23, 11], [7, 30], [15, 30], [23, 30]],
  7: [[15, 7, RED], [7, 21], [15, 21], [23, 21], [7, 34], [15, 34], [23, 34]],
  8: [[5.5, 11], [12, 11], [18, 11], [24.5, 11], [5.5, 30], [12, 30], [18, 30], [24.5, 30]],
  9: [7, 15, 23].flatMap((x) => [8, 20.5, 33].map((y) => [x, y, x === 15 ? RED : undefined])),
};

function sticksFace(r) {
  const tall = r >= 7 ? 10 : 13;
  return STICKS[r].map(([x, y, c]) => {
    const col = c || GREEN;
    return `<rect x="${x - 2.3}" y="${y - tall / 2}" width="4.6" height="${tall}" rx="2" fill="${col}"/>`
      + `<rect x="${x - 2.3}" y="${y - 0.6}" width="4.6" height="1.2" fill="#fff" opacity=".75"/>`;
  }).join('');
}

function textFace(top, topColor, bottom, bottomColor) {
  const t = `<text x="15" y="${bottom ? 17 : 28}" font-size="${bottom ? 15 : 22}" fill="${topColor}" text-anchor="middle" font-weight="700">${top}</text>`;
  const b = bottom ? `<text x="15" y="36" font-size="15" fill="${bottomColor}" text-anchor="middle" font-weight="700">${bottom}</text>` : '';
  return t + b;
}

function faceSvg(tile) {
  const s = suitOf(tile);
  const r = rankOf(tile);
  let body;
  if (tile === '1s') body = BIRD;
  else if (s === 'p') body = dotsFace(r);
  else if (s === 's') body = sticksFace(r);
  else if (s === 'm') body = textFace(NUMERALS[r - 1], INK, '萬', RED);
  else if (s === 'z' && r === 5) body = `<rect x="6" y="8" width="18" height="25" rx="1.5" fill="none" stroke="${BLUE}" stroke-width="2.4"/>`;
  else if (s === 'z') body = textFace(HONOURS[r - 1], r === 7 ? RED : r === 6 ? GREEN : INK);
  else if (s === 'f') {
    const colour = r <= 4 ? RED : GREEN;
    body = textFace(FLOWERS[r - 1], colour) + `<text x="25" y="8.5" font-size="7" fill="${colour}" text-anchor="middle">${r}</text>`;
  } else body = textFace(tile, INK);
  return `<svg class="face" viewBox="0 0 30 41" aria-hidden="true">${body}</svg>`;
}

/**
 * Build a tile element: a face drawn as SVG by the page (万 characters, 筒 circles, 条 sticks
 * with the 幺鸡 bird, honours and flowers), legible at phone size.
 * opts: {tag, size: 'xs'|'sm'|'md'|'lg', classes: [], title}
 */
export function tileEl(tile, opts = {}) {
  const el = document.createElement(opts.tag || 'span');
  el.className = `tile ${opts.size ? 'tile-' + opts.size : ''}`;
  if (!tile || tile === '?' || tile === 'back') {
    el.classList.add('tile-back');
    el.dataset.tile = 'back';
    return el;
  }
  el.classList.add(`suit-${suitOf(tile)}`);
  if (tile === '1s') el.classList.add('yaoji');
  el.dataset.tile = tile;
  el.title = opts.title || tileName(tile);
  if (opts.classes) el.classList.add(...opts.classes);
  el.innerHTML = faceSvg(tile);
  if (el.tagName === 'BUTTON') el.type = 'button';
  el.setAttribute('aria-label', tileName(tile));
  return el;
}

/** A row of tiles in a container element. */
export function tileRow(tiles, opts = {}) {
  const row = document.createElement('span');
  row.className = `tile-row ${opts.rowClass || ''}`;
  for (const tl of tiles) row.appendChild(tileEl(tl, opts));
  return row;
}

/** Pip centres of a die face 1..6 on a 20-unit square. */
const PIPS = {
  1: [[10, 10]], 2: [[5, 5], [15, 15]], 3: [[5, 5], [10, 10], [15, 15]],
  4: [[5, 5], [15, 5], [5, 15], [15, 15]], 5: [[5, 5], [15, 5], [10, 10], [5, 15], [15, 15]],
  6: [[5, 5], [5, 10], [5, 15], [15, 5], [15, 10], [15, 15]],
};

/** One die showing ``n`` (1..6) as an inline SVG element; 1 and 4 in red, as Chinese dice
 *  have them. */
export function dieEl(n) {
  const el = document.createElement('span');
  el.className = 'die';
  el.dataset.value = String(n);
  const fill = n === 1 || n === 4 ? '#c81e1e' : '#1f2937';
  const pips = (PIPS[n] || []).map(([x, y]) => `<circle cx="${x}" cy="${y}" r="${n === 1 ? 3.2 : 2.1}" fill="${fill}"/>`).join('');
  el.innerHTML = `<svg viewBox="0 0 20 20" aria-hidden="true"><rect x="0.5" y="0.5" width="19" height="19" rx="4" fill="#fffdf5" stroke="#9ca3af"/>${pips}</svg>`;
  return el;
}
