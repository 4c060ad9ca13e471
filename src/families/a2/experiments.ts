export const a2Experiments = [];
