export const now = 'harbour clock';
