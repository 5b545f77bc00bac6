export declare function descendants(pid: number): number[];
export declare function alive(pid: number): boolean;
