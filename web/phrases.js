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

export const EMOTES = [
  { id: 'emote_smile', text: '😄', zh: '笑', en: 'smile' },
  { id: 'emote_cry', text: '😭', zh: '哭', en: 'cry' },
  { id: 'emote_angry', text: '😠', zh: '生气', en: 'angry' },
  { id: 'emote_thumbs', text: '👍', zh: '赞', en: 'thumbs up' },
  { id: 'emote_rose', text: '🌹', zh: '送花', en: 'a rose' },
];

/** Seconds between two phrases of one seat (the server's PHRASE_SECONDS). */
export const PHRASE_SECONDS = 3;
/** How long a bubble stays at the seat (ms). */
export const BUBBLE_MS = 4000;

/** The text shown for phrase `id` in language `lang` ('' for an unknown id). */
export function phraseText(id, lang) {
  const p = PHRASES.find((x) => x.id === id);
  if (p) return lang === 'en' ? p.en : p.zh;
  const e = EMOTES.find((x) => x.id === id);
  return e ? e.text : '';
}

export function isEmote(id) { return EMOTES.some((x) => x.id === id); }
