import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { CaptionFontsLayer } from '../../lib/constructs/caption-fonts-layer';
import { WORKFLOWS } from '#workflows';
import { synthesizedStack } from './fixtures';

const { stack, template, logicalIdOf } = synthesizedStack();

function captionFontsLayerId(): string {
  const ids = Object.entries(template.findResources('AWS::Lambda::LayerVersion'))
    .filter(([, layer]) => String(layer.Properties.Description).startsWith('Caption fonts'))
    .map(([id]) => id);
  expect(ids).toHaveLength(1);
  return ids[0]!;
}

describe('caption fonts layer', () => {
  test('is attached, with CAPTION_FONTS_DIR, exactly to the workers that draw captions', () => {
    const layerRef = JSON.stringify({ Ref: captionFontsLayerId() });
    const functions = template.findResources('AWS::Lambda::Function');
    const users = Object.entries(functions)
      .filter(([, resource]) =>
        (resource.Properties.Layers ?? []).some((layer: unknown) => JSON.stringify(layer) === layerRef),
      )
      .map(([id]) => id)
      .sort();
    const drawers = stack.workflows
      .flatMap(({ workflow, workers }) =>
        Object.entries(workflow.workers)
          .filter(([, worker]) => worker.captionFonts)
          .map(([substitution]) => logicalIdOf(workers.get(substitution)!)),
      )
      .sort();
    expect(drawers).toEqual([
      logicalIdOf(stack.workflows.find((w) => w.workflow.name === 'split-job')!.workers.get('RenderClipFunction')!),
    ]);
    expect(users).toEqual(drawers);
    const withVariable = Object.entries(functions)
      .filter(([, resource]) => resource.Properties.Environment?.Variables?.CAPTION_FONTS_DIR !== undefined)
      .map(([id]) => id)
      .sort();
    expect(withVariable).toEqual(drawers);
    for (const id of drawers) {
      expect(functions[id]!.Properties.Environment.Variables.CAPTION_FONTS_DIR).toBe('/opt/caption-fonts');
    }
  });

  test('every worker that draws captions also runs ffmpeg', () => {
    const drawers = WORKFLOWS.flatMap((workflow) => Object.values(workflow.workers)).filter(
      (worker) => worker.captionFonts,
    );
    expect(drawers.length).toBeGreaterThan(0);
    expect(drawers.filter((worker) => !worker.mediaTools)).toEqual([]);
  });

  test('bundles only the two font files used, their licence and the fontconfig configuration, under 1 MB', () => {
    const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'caption-fonts-layer-'));
    try {
      const app = new App({ outdir });
      const layerStack = new Stack(app, 'CaptionFonts');
      new CaptionFontsLayer(layerStack, 'CaptionFonts');
      Template.fromStack(layerStack).resourceCountIs('AWS::Lambda::LayerVersion', 1);
      app.synth();
      const [asset] = fs.readdirSync(outdir).filter((entry) => entry.startsWith('asset.'));
      const root = path.join(outdir, asset!);
      const files = (fs.readdirSync(root, { recursive: true }) as string[])
        .filter((entry) => fs.statSync(path.join(root, entry)).isFile())
        .sort();
      expect(files).toEqual([
        'caption-fonts/OFL.txt',
        'caption-fonts/fonts.conf',
        'caption-fonts/fonts/Montserrat_700Bold.ttf',
        'caption-fonts/fonts/Montserrat_900Black.ttf',
      ]);
      const bytes = files.reduce((total, file) => total + fs.statSync(path.join(root, file)).size, 0);
      expect(bytes).toBeLessThan(1024 * 1024);
      expect(fs.readFileSync(path.join(root, 'caption-fonts/OFL.txt'), 'utf8')).toContain('SIL OPEN FONT LICENSE');
      expect(fs.readFileSync(path.join(root, 'caption-fonts/fonts.conf'), 'utf8')).not.toContain('<dir');
    } finally {
      fs.rmSync(outdir, { recursive: true, force: true });
    }
  });
});
