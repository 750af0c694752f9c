import { Injectable } from '@nestjs/common';
import { API_PREFIX } from '../../../platform/http/index.js';
import { buildToolCatalogue, type OpenApiSource, type Tool } from './tool-catalogue.js';
import { ToolArguments } from './tool-call.js';

/**
 * The tool catalogue of this process, built once from the application's OpenAPI document. The API
 * process hands it the document's builder at boot (main.ts), since only the application can build
 * its own document; it is built on first use.
 */
@Injectable()
export class McpTools {
  private source: (() => OpenApiSource) | undefined;
  private built: { tools: Tool[]; byName: Map<string, Tool>; args: ToolArguments } | undefined;

  documentFrom(source: () => OpenApiSource): void {
    this.source = source;
    this.built = undefined;
  }

  list(): Tool[] {
    return this.catalogue().tools;
  }

  find(name: string): Tool | undefined {
    return this.catalogue().byName.get(name);
  }

  get arguments(): ToolArguments {
    return this.catalogue().args;
  }

  private catalogue() {
    if (!this.built) {
      if (!this.source) throw new Error('the MCP tools have no OpenAPI document (McpTools.documentFrom is called at boot)');
      const tools = buildToolCatalogue(this.source(), `/${API_PREFIX}`);
      this.built = { tools, byName: new Map(tools.map((t) => [t.name, t])), args: new ToolArguments(tools) };
    }
    return this.built;
  }
}
