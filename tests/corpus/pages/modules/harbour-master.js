let count = 0;
export default 'harbour master';
export function greeting(who) {
  count += 1;
  return `welcome aboard, ${who}`;
}
export function visits() {
  return count;
}
