// Table sounds, synthesised in the page with the Web Audio API (nothing is downloaded):
// discard, pong, kong, win, your turn and the last seconds of a countdown. A mute switch is
// remembered in localStorage ('gy.mute' = '1').
//
// Every call of play(kind) is counted in window.__gySound.counts and listed in order in
// window.__gySound.log (muted or not: `played` counts the sounds really made), so a test can
// check which events make which sound.

const MUTE_KEY = 'gy.mute';

/** Each sound: notes of [frequency Hz, start s, length s, wave, gain]. */
const SOUNDS = {
  discard: [[420, 0, 0.07, 'triangle', 0.35], [210, 0.01, 0.06, 'square', 0.08]],
  pong: [[523, 0, 0.09, 'triangle', 0.3], [784, 0.08, 0.12, 'triangle', 0.3]],
  kong: [[392, 0, 0.08, 'square', 0.15], [523, 0.07, 0.08, 'square', 0.15], [659, 0.14, 0.16, 'triangle', 0.3]],
  win: [[523, 0, 0.12, 'triangle', 0.3], [659, 0.1, 0.12, 'triangle', 0.3], [784, 0.2, 0.12, 'triangle', 0.3], [1047, 0.3, 0.3, 'triangle', 0.35]],
  turn: [[880, 0, 0.08, 'sine', 0.3], [1175, 0.09, 0.1, 'sine', 0.25]],
  tick: [[1000, 0, 0.04, 'square', 0.08]],
};
export const SOUND_KINDS = Object.keys(SOUNDS);

const hook = { counts: {}, played: {}, last: null, log: [] };
window.__gySound = hook;

let ctx = null;
let muted = false;
try { muted = localStorage.getItem(MUTE_KEY) === '1'; } catch (e) { /* ignore */ }

function audio() {
  if (ctx) return ctx;
  const AC = window.AudioContext || window.webkitAudioContext;
  if (!AC) return null;
  try { ctx = new AC(); } catch (e) { ctx = null; }
  return ctx;
}

// Browsers start an AudioContext only after a user gesture: make it on the first one.
function unlock() {
  const c = audio();
  if (c && c.state === 'suspended') c.resume().catch(() => {});
}
window.addEventListener('pointerdown', unlock, { capture: true });
window.addEventListener('keydown', unlock, { capture: true });

export function isMuted() { return muted; }

export function setMuted(on) {
  muted = !!on;
  try { localStorage.setItem(MUTE_KEY, muted ? '1' : '0'); } catch (e) { /* ignore */ }
}

/** Play sound `kind` (one of SOUND_KINDS) unless muted. */
export function play(kind) {
  const notes = SOUNDS[kind];
  if (!notes) return;
  hook.counts[kind] = (hook.counts[kind] || 0) + 1;
  hook.last = kind;
  if (hook.log.length < 500) hook.log.push(kind);
  if (muted) return;
  const c = audio();
  if (!c || c.state !== 'running') return; // no gesture yet: stay silent
  hook.played[kind] = (hook.played[kind] || 0) + 1;
  const t0 = c.currentTime + 0.01;
  for (const [freq, at, len, wave, gain] of notes) {
    const osc = c.createOscillator();
    const g = c.createGain();
    osc.type = wave;
    osc.frequency.setValueAtTime(freq, t0 + at);
    g.gain.setValueAtTime(0.0001, t0 + at);
    g.gain.exponentialRampToValueAtTime(gain, t0 + at + 0.008);
    g.gain.exponentialRampToValueAtTime(0.0001, t0 + at + len);
    osc.connect(g).connect(c.destination);
    osc.start(t0 + at);
    osc.stop(t0 + at + len + 0.02);
  }
}
