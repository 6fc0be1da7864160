// Tile rendering: every tile is a small DOM element drawn with CSS (+ an inline SVG bird
// for 幺鸡 1s), so no special fonts or images are needed.

const SUIT_CHAR = { m: '万', p: '筒', s: '条' };
const SUIT_ORDER = { m: 0, p: 1, s: 2 };

export function suitOf(tile) { return tile ? tile[tile.length - 1] : ''; }
export function rankOf(tile) { return tile ? parseInt(tile, 10) : 0; }
export function suitChar(s) { return SUIT_CHAR[s] || s; }

export function tileName(tile) {
  if (!tile) return '';
  if (tile === '1s') return '幺鸡';
  return `${rankOf(tile)}${suitChar(suitOf(tile))}`;
}

/** Sort key: void suit last (if given), then suit m, p, s, then rank. */
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

const BIRD_SVG = `<svg class="bird" viewBox="0 0 40 40" aria-hidden="true">
  <path d="M6 27 L1 33 L11 30 Z" fill="#1f7a3a"/>
  <ellipse cx="19" cy="25" rx="12" ry="8" fill="#1f9a4a"/>
  <path d="M12 24 Q19 15 27 24 Q19 28 12 24 Z" fill="#c62828"/>
  <circle cx="29" cy="14" r="6" fill="#1f9a4a"/>
  <circle cx="31" cy="13" r="1.6" fill="#fff"/>
  <circle cx="31.4" cy="13" r="0.8" fill="#111"/>
  <path d="M34.5 14 L40 16 L34.5 17.5 Z" fill="#e0a100"/>
  <path d="M26 8 Q29 4 31 8" stroke="#c62828" stroke-width="2" fill="none"/>
  <path d="M16 33 L15 38 M22 33 L23 38" stroke="#8a5a00" stroke-width="1.6"/>
</svg>`;

/**
 * Build a tile element.
 * opts: {tag, size: 'sm'|'md'|'lg', classes: [], title}
 */
export function tileEl(tile, opts = {}) {
  const el = document.createElement(opts.tag || 'span');
  el.className = `tile ${opts.size ? 'tile-' + opts.size : ''}`;
  if (!tile || tile === '?' || tile === 'back') {
    el.classList.add('tile-back');
    el.dataset.tile = 'back';
    return el;
  }
  const s = suitOf(tile);
  const r = rankOf(tile);
  el.classList.add(`suit-${s}`);
  el.dataset.tile = tile;
  el.title = opts.title || tileName(tile);
  if (opts.classes) el.classList.add(...opts.classes);
  if (tile === '1s') {
    el.classList.add('yaoji');
    el.innerHTML = `${BIRD_SVG}<span class="t-suit">幺鸡</span>`;
  } else {
    el.innerHTML = `<span class="t-num">${r}</span><span class="t-suit">${suitChar(s)}</span>`;
  }
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
