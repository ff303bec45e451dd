export const sailings = [
  { departs: '07:15', to: 'Lundy' },
  { departs: '09:40', to: 'Clovelly' },
  { departs: '13:05', to: 'Appledore' },
];
export function describe(s) {
  return `${s.departs} to ${s.to}`;
}
export default 'the harbour timetable';
