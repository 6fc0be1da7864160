// Quick phrases and emotes (快捷语). Only ids travel over the socket
// ({type: 'phrase', phrase: id}); the text for an id is looked up here, in the page's
// language. The list matches server/room/phrases.py (the server refuses any other id).

export const PHRASES = [
  { id: 'hurry', zh: '快点出牌啊', en: 'Play a tile, quick!' },
  { id: 'hurry_up', zh: '搞快点了嘛', en: 'Hurry up a bit!' },
  { id: 'think', zh: '等一下，我想想', en: 'Wait, let me think' },
  { id: 'good_hand', zh: '好牌！', en: 'Nice tiles!' },
  { id: 'nice_play', zh: '打得漂亮', en: 'Well played' },
  { id: 'sorry', zh: '不好意思，手滑了', en: 'Sorry, my hand slipped' },
  { id: 'again', zh: '再来一局', en: 'One more hand' },
  { id: 'bye', zh: '我先走了，下次再玩', en: 'I have to go, see you next time' },
];

// Emotes are faces drawn here as SVG (no emoji font needed, nothing downloaded).
const FACE = '<circle cx="18" cy="18" r="16" fill="#fcd34d" stroke="#b45309" stroke-width="1.5"/>';
const EMOTE_SVG = {
  emote_smile: `${FACE}<path d="M10 14 q3 -4 6 0 M20 14 q3 -4 6 0" fill="none" stroke="#7c2d12" stroke-width="2" stroke-linecap="round"/><path d="M9 20 h18 q-1 9 -9 9 q-8 0 -9 -9z" fill="#7c2d12"/><path d="M13 25 q5 4 10 0" fill="#f87171"/>`,
  emote_cry: `${FACE}<path d="M10 14 q3 3 6 0 M20 14 q3 3 6 0" fill="none" stroke="#7c2d12" stroke-width="2" stroke-linecap="round"/><path d="M11 16 v14 M25 16 v14" stroke="#60a5fa" stroke-width="3" stroke-linecap="round"/><path d="M13 27 q5 -6 10 0" fill="none" stroke="#7c2d12" stroke-width="2" stroke-linecap="round"/>`,
  emote_angry: '<circle cx="18" cy="18" r="16" fill="#f87171" stroke="#991b1b" stroke-width="1.5"/><path d="M9 11 l7 3 M27 11 l-7 3" stroke="#450a0a" stroke-width="2.2" stroke-linecap="round"/><circle cx="13" cy="17" r="2" fill="#450a0a"/><circle cx="23" cy="17" r="2" fill="#450a0a"/><path d="M12 27 q6 -5 12 0" fill="none" stroke="#450a0a" stroke-width="2.2" stroke-linecap="round"/>',
  emote_cool: `${FACE}<path d="M7 13 h22 v2 h-1 q0 5 -4 5 h-2 q-3 0 -4 -4 q-1 4 -4 4 h-2 q-4 0 -4 -5 h-1z" fill="#111827"/><path d="M12 25 q7 4 12 -2" fill="none" stroke="#7c2d12" stroke-width="2" stroke-linecap="round"/>`,
  emote_wow: `${FACE}<circle cx="12.5" cy="15" r="3" fill="#fff" stroke="#7c2d12" stroke-width="1.5"/><circle cx="23.5" cy="15" r="3" fill="#fff" stroke="#7c2d12" stroke-width="1.5"/><circle cx="12.5" cy="15" r="1.2" fill="#7c2d12"/><circle cx="23.5" cy="15" r="1.2" fill="#7c2d12"/><ellipse cx="18" cy="25" rx="3.5" ry="4.5" fill="#7c2d12"/>`,
};

export const EMOTES = [
  { id: 'emote_smile', zh: '大笑', en: 'laugh' },
  { id: 'emote_cry', zh: '大哭', en: 'cry' },
  { id: 'emote_angry', zh: '生气', en: 'angry' },
  { id: 'emote_cool', zh: '得意', en: 'cool' },
  { id: 'emote_wow', zh: '惊讶', en: 'wow' },
];

/** The SVG face of emote `id` (null for an id that is not an emote). */
export function emoteSvg(id) {
  const body = EMOTE_SVG[id];
  if (!body) return null;
  const wrap = document.createElement('span');
  wrap.className = 'emote-face';
  wrap.dataset.emote = id;
  // static markup of this file only (no player input): presentation attributes, no style
  wrap.innerHTML = `<svg viewBox="0 0 36 36" width="1em" height="1em" aria-hidden="true">${body}</svg>`;
  return wrap;
}

/** Seconds between two phrases of one seat (the server's PHRASE_SECONDS). */
export const PHRASE_SECONDS = 3;
/** How long a bubble stays at the seat (ms). */
export const BUBBLE_MS = 4000;

/** The text of phrase `id` in language `lang`; for an emote its name ('' if unknown). */
export function phraseText(id, lang) {
  const p = PHRASES.find((x) => x.id === id) || EMOTES.find((x) => x.id === id);
  if (!p) return '';
  return lang === 'en' ? p.en : p.zh;
}

export function isEmote(id) { return EMOTES.some((x) => x.id === id); }
