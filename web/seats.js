// Where the seats sit around the table, shared by the table (app.js) and 回放 (replay.js).

/** Which tile of seat ``owner``'s meld ``m`` (of ``n`` seats) lies turned, as at a real
 *  table: a chow's, the tile it took, in its place in the run (from 上家 only); else the
 *  claimed tile points at the seat it came from: 上家 (left) the first tile, 对家 the middle
 *  one, 下家 (right) the last. null for a meld of one's own tiles (a concealed kong). */
export function turnedTile(m, owner, n) {
  const tiles = m.tiles || [];
  if (m.kind === 'men_dou' || m.kind === 'concealed_kong') return null;
  if (m.kind === 'chow' && tiles.includes(m.claimed)) return tiles.indexOf(m.claimed);
  const from = m.from;
  if (from === undefined || from === null || owner === undefined || owner === null) return null;
  const size = tiles.length;
  const off = (from - owner + n) % n;
  if (off === 0) return null;
  if (n === 2 || (n === 4 && off === 2)) return 1;
  if (off === 1) return size - 1;
  return 0;
}

/** Where seat ``i`` of ``n`` sits seen from seat ``me``, as in the apps: ``me`` at the
 *  bottom, 下家 ((me+1)%n) on the right, 对家 at the top, 上家 ((me-1)%n) on the left;
 *  3 players: right and left; 2: face to face (top). */
export function seatPosition(i, me, n) {
  const off = (i - me + n) % n;
  if (off === 0) return 'bottom';
  if (n === 2) return 'top';
  if (n === 3) return off === 1 ? 'right' : 'left';
  return ['bottom', 'right', 'top', 'left'][off];
}
