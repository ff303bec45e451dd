export const highWater = '11:52';
