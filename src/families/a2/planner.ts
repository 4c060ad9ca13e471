export const a2Planner = undefined;
