// Where the seats sit around the table, shared by the table (app.js) and 回放 (replay.js).

/** Where seat ``i`` of ``n`` sits seen from seat ``me``, as in the apps: ``me`` at the
 *  bottom, 下家 ((me+1)%n) on the right, 对家 at the top, 上家 ((me-1)%n) on the left;
 *  3 players: right and left; 2: face to face (top). */
/** Which tile of a claimed meld of ``size`` tiles is turned, as at a real table: it points at
 *  the seat ``from`` it came from, seen from the meld's ``owner`` (``n`` seats): 上家 (left)
 *  the first tile, 对家 the middle one, 下家 (right) the last. null for a meld of one's own
 *  tiles. */
export function turnedIndex(owner, from, size, n) {
  if (from === undefined || from === null || owner === undefined || owner === null) return null;
  const off = (from - owner + n) % n;
  if (off === 0) return null;
  if (n === 2 || (n === 4 && off === 2)) return 1;
  if (off === 1) return size - 1;
  return 0;
}

export function seatPosition(i, me, n) {
  const off = (i - me + n) % n;
  if (off === 0) return 'bottom';
  if (n === 2) return 'top';
  if (n === 3) return off === 1 ? 'right' : 'left';
  return ['bottom', 'right', 'top', 'left'][off];
}
