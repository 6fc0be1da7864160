// Where the seats sit around the table, shared by the table (app.js) and 回放 (replay.js).

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
