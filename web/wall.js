// The wall of a hand rebuilt in the page from its revealed seed, exactly as the server builds
// it (server/rules/dealing.py, guiyang.md §2 §13, jintan.md §J1): Python's
// random.Random(seed).shuffle of the game's whole tile set (Mersenne Twister MT19937 seeded
// as CPython seeds it from a str), then the deal (four tiles a seat for three rounds from the
// dealer, one each, one more for the dealer; the rest is the wall in draw order).
// The seed's SHA-256 is published at the deal and the seed at the end: checkSeed compares
// them. Hashing is WebCrypto's (crypto.subtle, a secure context: https or localhost).

import { getLang } from './i18n.js';

const NUMBER_TILES = ['m', 'p', 's'].flatMap((suit) => [1, 2, 3, 4, 5, 6, 7, 8, 9].map((r) => `${r}${suit}`));
const HONOURS = [1, 2, 3, 4, 5, 6, 7].map((r) => `${r}z`);
const FLOWERS = [1, 2, 3, 4, 5, 6, 7, 8].map((r) => `${r}f`);
const four = (kinds) => kinds.flatMap((k) => [k, k, k, k]);

/** Every tile of one set, in the server's order (Game.tile_set): 108 Guiyang, 144 Jintan. */
export const TILE_SETS = {
  guiyang: four(NUMBER_TILES),
  jintan: four(NUMBER_TILES.concat(HONOURS)).concat(FLOWERS),
};

export function tileSet(game) {
  const set = TILE_SETS[game || 'guiyang'];
  if (!set) throw new Error(`unknown game ${game}`);
  return set.slice();
}

function subtle() {
  const c = globalThis.crypto;
  if (!c || !c.subtle) throw new Error('WebCrypto (crypto.subtle) is unavailable: open the page over https');
  return c.subtle;
}

async function digest(alg, bytes) {
  return new Uint8Array(await subtle().digest(alg, bytes));
}

const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

/** SHA-256 hex of the seed's UTF-8 bytes (server/rules/dealing.py seed_hash). */
export async function seedHash(seed) {
  return hex(await digest('SHA-256', new TextEncoder().encode(seed)));
}

// ------------------------------------------------------------------ MT19937 as in CPython
const N = 624;
const M = 397;

class MersenneTwister {
  constructor(key) {
    this.mt = new Uint32Array(N);
    this.mti = N + 1;
    this.initByArray(key);
  }

  initGenrand(s) {
    const mt = this.mt;
    mt[0] = s >>> 0;
    for (let i = 1; i < N; i++) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = (Math.imul(1812433253, prev) + i) >>> 0;
    }
    this.mti = N;
  }

  initByArray(key) {
    const mt = this.mt;
    this.initGenrand(19650218);
    let i = 1;
    let j = 0;
    for (let k = Math.max(N, key.length); k > 0; k--) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = ((mt[i] ^ Math.imul(prev, 1664525)) + key[j] + j) >>> 0;
      i++; j++;
      if (i >= N) { mt[0] = mt[N - 1]; i = 1; }
      if (j >= key.length) j = 0;
    }
    for (let k = N - 1; k > 0; k--) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = ((mt[i] ^ Math.imul(prev, 1566083941)) - i) >>> 0;
      i++;
      if (i >= N) { mt[0] = mt[N - 1]; i = 1; }
    }
    mt[0] = 0x80000000;
  }

  uint32() {
    const mt = this.mt;
    if (this.mti >= N) {
      let kk = 0;
      for (; kk < N - M; kk++) {
        const y = (mt[kk] & 0x80000000) | (mt[kk + 1] & 0x7fffffff);
        mt[kk] = mt[kk + M] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      for (; kk < N - 1; kk++) {
        const y = (mt[kk] & 0x80000000) | (mt[kk + 1] & 0x7fffffff);
        mt[kk] = mt[kk + (M - N)] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      const y = (mt[N - 1] & 0x80000000) | (mt[0] & 0x7fffffff);
      mt[N - 1] = mt[M - 1] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      this.mti = 0;
    }
    let y = mt[this.mti++];
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** random.getrandbits(k) for 1 <= k <= 32. */
  getrandbits(k) { return this.uint32() >>> (32 - k); }

  /** random._randbelow(n): rejection sampling on n.bit_length() bits. */
  randbelow(n) {
    const k = 32 - Math.clz32(n);
    let r = this.getrandbits(k);
    while (r >= n) r = this.getrandbits(k);
    return r;
  }
}

/** The key CPython's random.seed(str) (version 2) gives init_by_array: the big integer of
 * the seed's bytes followed by their SHA-512, as 32-bit words, least significant first. */
async function seedKey(seed) {
  const bytes = new TextEncoder().encode(seed);
  const sha = await digest('SHA-512', bytes);
  const be = new Uint8Array(bytes.length + sha.length);
  be.set(bytes, 0);
  be.set(sha, bytes.length);
  let start = 0;
  while (start < be.length && be[start] === 0) start++; // leading zeros add no bits
  const le = be.slice(start).reverse();
  const words = Math.max(1, Math.ceil(le.length / 4));
  const key = new Uint32Array(words);
  for (let i = 0; i < le.length; i++) key[i >> 2] |= le[i] << (8 * (i & 3));
  return key;
}

/** random.Random(seed) as CPython builds it from a str seed. */
export async function pythonRandom(seed) {
  return new MersenneTwister(await seedKey(seed));
}

/** random.Random(seed).shuffle(tiles): a new shuffled array. */
export async function shuffle(tiles, seed) {
  const rng = await pythonRandom(seed);
  const x = tiles.slice();
  for (let i = x.length - 1; i >= 1; i--) {
    const j = rng.randbelow(i + 1);
    [x[i], x[j]] = [x[j], x[i]];
  }
  return x;
}

/** shuffle_and_deal(game's tile set, seed, players, dealer): {hands: [[tile]], wall: [tile]}. */
export async function rebuildDeal(game, seed, players, dealer) {
  const shuffled = await shuffle(tileSet(game), seed);
  const hands = Array.from({ length: players }, () => []);
  const order = Array.from({ length: players }, (_, i) => (dealer + i) % players);
  let pos = 0;
  for (let round = 0; round < 3; round++) {
    for (const seat of order) { hands[seat].push(...shuffled.slice(pos, pos + 4)); pos += 4; }
  }
  for (const seat of order) hands[seat].push(shuffled[pos++]);
  hands[dealer].push(shuffled[pos++]);
  return { hands, wall: shuffled.slice(pos) };
}

const same = (a, b) => Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * Check a revealed seed: its SHA-256 against the hash published at the deal, and (when the
 * server's deal is given) the page's rebuilt hands and wall against it.
 * Returns {ok, hashOk, dealOk (null: nothing to compare), hash, hands, wall, error?}.
 */
export async function checkSeed({ game, seed, publishedHash, players, dealer, deal = null }) {
  try {
    const hash = await seedHash(seed);
    const rebuilt = await rebuildDeal(game, seed, players, dealer);
    const hashOk = !!publishedHash && hash === String(publishedHash).toLowerCase();
    const dealOk = deal ? same(rebuilt.wall, deal.wall) && rebuilt.hands.every((hd, i) => same(hd, deal.hands[i])) : null;
    return { ok: hashOk && dealOk !== false, hashOk, dealOk, hash, ...rebuilt };
  } catch (err) {
    return { ok: false, hashOk: false, dealOk: null, hash: null, hands: [], wall: [], error: String(err && err.message || err) };
  }
}

// The control's words in the page's language (i18n.js's choice; Chinese unless set to English).
const WORDS = {
  zh: {
    error: '✗ 无法验证：', hash_bad: '✗ 种子的哈希与开局公布的哈希不一致',
    deal_bad: '✗ 页面重建的牌墙与服务器的回放不一致', ok: '✓ 牌墙与开局公布的哈希一致',
    verify: '验证', wall: '牌墙',
  },
  en: {
    error: '✗ Cannot verify: ', hash_bad: "✗ The seed's hash differs from the hash published at the deal",
    deal_bad: "✗ The wall rebuilt in the page differs from the server's replay",
    ok: '✓ The wall matches the hash published at the deal', verify: 'Verify', wall: 'Wall',
  },
};
const w = (k) => (WORDS[getLang()] || WORDS.zh)[k];

/** The check's verdict as one line of text (in the page's language). */
export function verdictText(res) {
  if (res.error) return `${w('error')}${res.error}`;
  if (!res.hashOk) return w('hash_bad');
  if (res.dealOk === false) return w('deal_bad');
  return w('ok');
}

// The verdicts already shown, by check: a re-render of the settlement shows them again.
const verdicts = new Map();

/**
 * A "验证" (verify) control for a revealed seed: a button that rebuilds the wall in the page
 * and shows the verdict and the rebuilt wall. `opts` as checkSeed's, plus `id` for the box.
 * The box gets `data-ok` ("true" / "false") once checked.
 */
export function verifyEl(opts) {
  const box = document.createElement('div');
  box.className = 'seed-verify';
  if (opts.id) box.id = opts.id;
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'ghost small verify-btn';
  button.textContent = w('verify');
  button.title = 'verify: rebuild the wall from the seed and compare with the hash published at the deal';
  const out = document.createElement('span');
  out.className = 'verify-result';
  out.setAttribute('role', 'status');
  const wall = document.createElement('details');
  wall.className = 'verify-wall';
  wall.hidden = true;
  const key = JSON.stringify([opts.game, opts.seed, opts.publishedHash, opts.players, opts.dealer]);
  const show = (res) => {
    out.textContent = verdictText(res);
    out.className = `verify-result ${res.ok ? 'ok' : 'bad'}`;
    box.dataset.ok = String(res.ok);
    if (res.wall.length) {
      const summary = document.createElement('summary');
      summary.textContent = `${w('wall')} (${res.wall.length})`;
      const code = document.createElement('code');
      code.textContent = res.wall.join(' ');
      wall.replaceChildren(summary, code);
      wall.hidden = false;
    }
  };
  button.addEventListener('click', async () => {
    button.disabled = true;
    out.textContent = '…';
    const res = await checkSeed(opts);
    verdicts.set(key, res);
    show(res);
    button.disabled = false;
  });
  box.append(button, out, wall);
  if (verdicts.has(key)) show(verdicts.get(key));
  return box;
}
