import { measureCaptionBurnIn } from './bench/caption-burn-in';
measureCaptionBurnIn((m) => console.log(m)).then((f) => console.log(JSON.stringify(f)));
